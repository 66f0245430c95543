// A session as `tend mcp` shows it to an agent: the few fields a model acts
// on (how to name it, whether it runs, what it runs, where, its agent), in
// snake_case, times as ISO strings. Every tool that answers with a session
// answers this shape, and every tool that takes one takes `sessionArg`.
import { z } from 'zod';
import { API_ROUTES, type AgentInfo, type ListedSession, type SessionInfo } from '../../protocol/api/index.js';
import { describeExit } from '../../protocol/exit-status.js';
import type { McpApi } from './mcp-api.js';

/** The `session` argument of every tool: what every verb takes as a target. */
export const sessionArg = z
  .string()
  .min(1)
  .describe('The session: its id (or a unique prefix of it), its name (":build" or "build"), or its index as list_sessions shows it.');

export const sessionStatusSchema = z
  .enum(['running', 'exited', 'cold', 'elsewhere'])
  .describe("running; exited (its program ended: exit_code says how, and its screen and output stay readable); cold (its process is gone, its last screen kept); elsewhere (another tend server holds it)");

export const agentSummarySchema = z
  .object({
    kind: z.enum(['claude', 'codex', 'gemini']),
    state: z.enum(['starting', 'idle', 'busy', 'needs-permission', 'sleeping', 'waking', 'exited']),
  })
  .nullable()
  .describe('The AI coding agent in the session and its state (idle: ready for a prompt; busy: in a turn; needs-permission: asks a person), or null when none is known.');

export const sessionViewSchema = z.object({
  id: z.string().describe('The session id: names it in every other tool.'),
  name: z.string().nullable(),
  index: z.number().int().nullable().describe('Its 1-based place in list_sessions (indexes shift as sessions go; the id does not). Null when the session was just removed.'),
  status: sessionStatusSchema,
  exit_code: z.number().int().nullable().describe("Once the program exited by itself: its exit code; else null."),
  exit_signal: z.number().int().nullable().describe('Once a signal ended the program: the signal number (9 is SIGKILL); else null.'),
  command: z.array(z.string()).describe('The program the session started and its arguments (a shell, unless it was started with argv).'),
  cwd: z.string().describe('The working directory its program last reported (else the one it started in).'),
  title: z.string().describe('The title its program set; empty when none.'),
  cols: z.number().int(),
  rows: z.number().int(),
  agent: agentSummarySchema,
  last_output_at: z.string().nullable().describe('When it last printed anything (ISO 8601), or null.'),
  note: z.string().optional().describe('Present when the session is not running: how its program ended and what can still be read.'),
  warning: z.string().optional().describe("Present only when something is wrong: its screen cannot be saved (a full disk), or its agent's hooks never reported (its state is then a guess)."),
});

export type SessionView = z.infer<typeof sessionViewSchema>;

/** The agent as an answer shows it: its kind and state. */
export function agentSummary(agent: AgentInfo | null): SessionView['agent'] {
  return agent === null ? null : { kind: agent.kind, state: agent.state };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** What a session that is not running still offers, in words; undefined while it runs. */
export function notRunningNote(s: Pick<SessionInfo, 'status' | 'exitCode' | 'exitSignal'>): string | undefined {
  switch (s.status) {
    case 'running':
      return undefined;
    case 'exited':
      return `its program ${describeExit({ code: s.exitCode, signal: s.exitSignal })}; its screen (screen), commands and output stay readable until kill_session removes it; new_session starts another`;
    case 'cold':
      return "its process is gone (the machine restarted, or its holder was killed); its last screen, commands and output stay readable; new_session starts another";
    case 'elsewhere':
      return 'another tend server holds this session now; this one can only read what it saw last';
  }
}

/** The session as an agent reads it; `index` from list_sessions when the answer had none. */
export function sessionView(s: SessionInfo & { index?: number }, index: number | null = s.index ?? null): SessionView {
  const note = notRunningNote(s);
  const warnings = [s.warning, s.agent?.warning].filter((w): w is string => w !== undefined && w !== '');
  return {
    id: s.id,
    name: s.name,
    index,
    status: s.status,
    exit_code: s.exitCode,
    exit_signal: s.exitSignal,
    command: s.argv,
    cwd: s.cwd,
    title: s.title,
    cols: s.cols,
    rows: s.rows,
    agent: agentSummary(s.agent),
    last_output_at: isoOrNull(s.lastOutputAt),
    ...(note !== undefined ? { note } : {}),
    ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
  };
}

/** The session as an agent reads it, with its index looked up in the list (an answer of one session carries none). */
export async function indexedSessionView(api: McpApi, s: SessionInfo): Promise<SessionView> {
  const listed = await api.again<ListedSession[]>(API_ROUTES.listSessions);
  return sessionView(s, listed.find((l) => l.id === s.id)?.index ?? null);
}
