// Where each agent keeps the user settings its hooks are read from, as the
// agents document it (docs/agents.md has the sources): Claude Code
// $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json, Codex
// $CODEX_HOME/hooks.json or ~/.codex/hooks.json, Gemini CLI
// ~/.gemini/settings.json.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentKind } from '../../protocol/api/agents.js';

export function agentSettingsFile(kind: AgentKind, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME && env.HOME !== '' ? env.HOME : homedir();
  const dirFromEnv = (name: string, fallback: string) => resolve(env[name] && env[name] !== '' ? env[name]! : join(home, fallback));
  switch (kind) {
    case 'claude':
      return join(dirFromEnv('CLAUDE_CONFIG_DIR', '.claude'), 'settings.json');
    case 'codex':
      return join(dirFromEnv('CODEX_HOME', '.codex'), 'hooks.json');
    case 'gemini':
      return join(home, '.gemini', 'settings.json');
  }
}
