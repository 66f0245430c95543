// Where each agent keeps the MCP servers of its user (all its projects), as
// the agents document it: Claude Code in the root "mcpServers" of
// ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when that is set), Codex in
// the [mcp_servers.NAME] tables of $CODEX_HOME/config.toml (else
// ~/.codex/config.toml), Gemini CLI in the "mcpServers" of
// ~/.gemini/settings.json.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentKind } from '../../protocol/api/agents.js';

export function agentMcpConfigFile(kind: AgentKind, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME && env.HOME !== '' ? env.HOME : homedir();
  const fromEnv = (name: string) => (env[name] && env[name] !== '' ? resolve(env[name]!) : null);
  switch (kind) {
    case 'claude':
      return join(fromEnv('CLAUDE_CONFIG_DIR') ?? home, '.claude.json');
    case 'codex':
      return join(fromEnv('CODEX_HOME') ?? join(home, '.codex'), 'config.toml');
    case 'gemini':
      return join(home, '.gemini', 'settings.json');
  }
}
