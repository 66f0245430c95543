// The fake agent's command line: `--flavour KIND` (written by the bin
// scripts), then the real agent's own arguments, of which it understands what
// tend uses and ignores the rest:
//   claude [--session-id UUID] [--resume ID | -r ID] [--settings FILE|JSON]
//   codex [resume ID]
//   gemini [--resume ID | -r ID]
import { isAgentKind, type AgentKind } from '../../../src/protocol/api/agents.js';

export interface FakeAgentArgs {
  kind: AgentKind;
  /** Claude's --session-id: the id of the new conversation. */
  sessionId: string | null;
  /** The conversation to resume. */
  resumeId: string | null;
  /** Claude's --settings. */
  settings: string | null;
}

/** A command line the agent refuses, said as one line on stderr, exit 1. */
export class AgentArgsError extends Error {}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseFakeAgentArgs(argv: readonly string[]): FakeAgentArgs {
  if (argv[0] !== '--flavour' || !isAgentKind(argv[1])) {
    throw new AgentArgsError('fake agent: start me as `fake-agent --flavour claude|codex|gemini [ARGS...]` (the bin scripts do)');
  }
  const kind = argv[1];
  const rest = argv.slice(2);
  const parsed: FakeAgentArgs = { kind, sessionId: null, resumeId: null, settings: null };
  if (kind === 'codex') {
    const at = rest.indexOf('resume');
    if (at !== -1) {
      const id = rest[at + 1];
      if (id === undefined || id.startsWith('-')) throw new AgentArgsError('fake codex: `codex resume` needs a session id here (the fake has no picker)');
      parsed.resumeId = id;
    }
    return parsed;
  }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (eq !== -1 && arg.startsWith('--')) return arg.slice(eq + 1);
      const value = rest[++i];
      if (value === undefined) throw new AgentArgsError(`error: option '${name}' argument missing`);
      return value;
    };
    if (name === '--resume' || name === '-r') parsed.resumeId = takeValue();
    else if (kind === 'claude' && name === '--session-id') parsed.sessionId = takeValue();
    else if (kind === 'claude' && name === '--settings') parsed.settings = takeValue();
  }
  if (parsed.sessionId !== null && !UUID_PATTERN.test(parsed.sessionId)) {
    throw new AgentArgsError('Error: Invalid session ID. Must be a valid UUID.');
  }
  return parsed;
}
