// `tend hook EVENT`: an agent's hook event, its JSON payload on stdin, sent
// to the tend server of the session it runs in, for people who write their
// own hook entries. It keeps the native hook client's contract
// (holder/hook-client.c): silent, exit 0 whatever happens (an agent blocks
// its turn on exit 2 and shows a hook's stderr), every wait bounded, and it
// never starts a server. The native client is what tend registers: a Node
// start alone costs more than a hook may add to a turn.
import { request as httpRequest } from 'node:http';
import type { Verb } from '../verb.js';
import { EXIT } from '../exit-codes.js';
import { AGENT_EVENT_NAME_PATTERN, API_ROUTES, MAX_AGENT_EVENT_BYTES, isAgentKind, routeRequest, type AgentKind } from '../../protocol/api/index.js';

/** An agent writes its payload and closes stdin at once; a stdin left open (run by hand) is not waited on longer. */
const STDIN_DEADLINE_MS = 2000;
/** From sending to the reply's status line: keeps one agent's events in order, yet a stopped server cannot hold the agent. */
const SERVER_DEADLINE_MS = 300;
/** TEND_SESSION as the server gives it; anything else goes into no URL. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9]{1,64}$/;

interface Payload {
  body: Buffer;
  /** Past MAX_AGENT_EVENT_BYTES, or stdin not closed in time: the body is not sent. */
  truncated: boolean;
}

export const hookVerb: Verb = {
  name: 'hook',
  summary: "report an agent's hook event to tend (for an agent's hook settings)",
  usage: `tend hook EVENT [--agent claude|codex|gemini]

Reads an agent's hook payload (JSON) on stdin and reports it to the tend server
of the session it runs in (TEND_SESSION and TEND_SOCKET, which tend sets in
every session), so tend knows the agent's state: idle, busy, asking for
permission. For hook entries you write yourself, as in Claude Code's settings:
  {"type": "command", "command": "tend hook Stop"}
EVENT is the agent's own event name (SessionStart, UserPromptSubmit, Stop…).

  --agent KIND   the agent: claude, codex or gemini (default: gemini where
                 GEMINI_SESSION_ID is set, else claude)

It prints nothing and always exits 0, even outside tend or with no server, so
it never fails or blocks the agent's turn; it waits at most ${STDIN_DEADLINE_MS / 1000} s for stdin and
${SERVER_DEADLINE_MS} ms for the server. \`tend agent\` and \`tend hooks install\` register the
faster native client (tend-hook) instead: a Node start costs ~100 ms a hook.`,
  options: { agent: { type: 'string' } },
  neverFails: true,
  async run({ args }) {
    // Read even when nothing will be sent: the agent's write into our stdin must not fail.
    const payload = await readPayload(process.stdin);
    const kind = agentKindOf(args.values.agent, process.env);
    const [event, ...extra] = args.positionals;
    const session = process.env.TEND_SESSION ?? '';
    const socketPath = process.env.TEND_SOCKET ?? '';
    if (kind === null || event === undefined || extra.length > 0 || !AGENT_EVENT_NAME_PATTERN.test(event)) return EXIT.ok;
    if (!SESSION_ID_PATTERN.test(session) || socketPath === '') return EXIT.ok;
    await postEvent(socketPath, session, kind, event, payload);
    return EXIT.ok;
  },
};

/** --agent, else the agent whose own variable the hook's environment carries (Claude sets CLAUDE_CODE_SESSION_ID, Gemini GEMINI_SESSION_ID). */
function agentKindOf(option: unknown, env: NodeJS.ProcessEnv): AgentKind | null {
  if (option !== undefined) return isAgentKind(option) ? option : null;
  if (env.CLAUDE_CODE_SESSION_ID) return 'claude';
  if (env.GEMINI_SESSION_ID) return 'gemini';
  return 'claude';
}

/** stdin to its end or the deadline, keeping the first MAX_AGENT_EVENT_BYTES and reading the rest into nothing. */
function readPayload(stdin: NodeJS.ReadStream): Promise<Payload> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const finish = (timedOut: boolean) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      // A stdin still open would keep the process alive after the verb returns.
      if (timedOut) stdin.destroy();
      resolve({ body: truncated || timedOut ? Buffer.alloc(0) : Buffer.concat(chunks, kept), truncated: truncated || timedOut });
    };
    const timer = setTimeout(() => finish(true), STDIN_DEADLINE_MS);
    stdin.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (kept + chunk.length > MAX_AGENT_EVENT_BYTES) {
        truncated = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    stdin.once('end', () => finish(false));
    // No stdin at all (closed): an empty payload.
    stdin.once('error', () => finish(false));
  });
}

/** Posts the event and waits for the reply's status line, at most SERVER_DEADLINE_MS; every failure is swallowed. */
function postEvent(socketPath: string, session: string, kind: AgentKind, event: string, payload: Payload): Promise<void> {
  const { method, path } = routeRequest(API_ROUTES.agentEvent, { target: session }, { agent: kind, event, truncated: payload.truncated ? 1 : undefined });
  return new Promise((resolve) => {
    const req = httpRequest({
      socketPath,
      agent: false,
      method,
      path,
      headers: { 'content-type': 'application/json', 'content-length': payload.body.length, connection: 'close' },
    }, () => done());
    const timer = setTimeout(() => done(), SERVER_DEADLINE_MS);
    function done(): void {
      clearTimeout(timer);
      req.destroy();
      resolve();
    }
    req.on('error', () => done());
    req.end(payload.body);
  });
}
