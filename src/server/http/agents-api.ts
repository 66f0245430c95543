// /v1/sessions/:target/agent/…: what agents' hooks report (events), and a
// person's sleep and wake. docs/api.md "Agents" documents them; the hook
// client (holder/hook-client.c) is the usual caller of events.
import type { Router } from './router.js';
import { readBody } from './router.js';
import { ApiError, badRequest } from './errors.js';
import {
  AGENT_EVENT_NAME_PATTERN,
  AGENT_KINDS,
  MAX_AGENT_EVENT_BYTES,
  isAgentKind,
  type AgentActionReply,
  type AgentEventReply,
  type AgentLaunchRequest,
} from '../../protocol/api/index.js';
import type { Session } from '../session.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { hasControlCharacter } from '../agents/agent-launch.js';
import { isShellProgram } from '../agents/shell-program.js';
import type { AgentSleepControl } from '../agents/agent-sleep.js';
import type { Payload } from '../agents/hook-events.js';

const MAX_LAUNCH_ARGS = 256;
const MAX_LAUNCH_ARG_CHARS = 64 * 1024;
/** A day: longer idle times are "never" (0). */
const MAX_SLEEP_AFTER_MS = 24 * 60 * 60 * 1000;

export interface AgentRoutesDeps {
  target: (t: string | undefined) => Session;
  agents: AgentRegistry;
  sleep: AgentSleepControl | null;
  /** Run before a live event is applied: the hook spool's replay, so an event spooled earlier comes first. */
  beforeEvent?: () => void;
}

export function addAgentRoutes(router: Router, deps: AgentRoutesDeps): void {
  router.add('agentEvent', async (req) => {
    const session = deps.target(req.params.target);
    const kind = req.query.get('agent');
    if (!isAgentKind(kind)) throw badRequest(`"agent" must be one of ${AGENT_KINDS.join(', ')}, not ${JSON.stringify(kind)}`);
    const event = req.query.get('event') ?? '';
    if (!AGENT_EVENT_NAME_PATTERN.test(event)) throw badRequest(`"event" must be a hook event name like "Stop", not ${JSON.stringify(event)}`);
    const truncated = req.query.get('truncated') === '1';
    const body = await readBody(req.raw, MAX_AGENT_EVENT_BYTES);
    let payload: Payload | null = null;
    if (!truncated && body.length > 0) {
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        throw new ApiError('bad_json', `the ${event} payload is not valid JSON`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('bad_json', `the ${event} payload must be a JSON object`);
      payload = value as Payload;
    }
    deps.beforeEvent?.();
    // A payload cut by the client's limit still tells that the event happened: read as one with no fields.
    const reply = deps.agents.report(session, kind, event, payload ?? (truncated ? {} : null));
    return { status: 200, json: reply satisfies AgentEventReply };
  });

  const action = (name: 'sleepAgent' | 'wakeAgent', run: (control: AgentSleepControl, session: Session) => Promise<void>) =>
    router.add(name, async (req) => {
      const session = deps.target(req.params.target);
      const agent = deps.agents.of(session.id);
      if (agent === undefined) throw new ApiError('no_agent', `session ${session.label} has no agent: start one with \`tend agent\`, or install tend's hooks (\`tend hooks install\`)`);
      if (deps.sleep === null) throw new ApiError('agent_cannot_sleep', 'this server cannot put agents to sleep');
      await run(deps.sleep, session);
      return { status: 200, json: { session: session.id, agent: agent.info() } satisfies AgentActionReply };
    });
  action('sleepAgent', (control, session) => control.sleep(session));
  action('wakeAgent', (control, session) => control.wake(session));
}

/** The `agent` of a create (or split) request, checked; undefined when absent. */
export function parseAgentLaunch(body: Record<string, unknown>, argv: readonly string[]): AgentLaunchRequest | undefined {
  const raw = body.agent;
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('"agent" must be an object like {"kind": "claude"}');
  const a = raw as Record<string, unknown>;
  if (!isAgentKind(a.kind)) throw badRequest(`"agent.kind" must be one of ${AGENT_KINDS.join(', ')}, not ${JSON.stringify(a.kind)}`);
  let args: string[] | undefined;
  if (a.args !== undefined) {
    if (!Array.isArray(a.args) || a.args.length > MAX_LAUNCH_ARGS || a.args.some((x) => typeof x !== 'string' || x.length > MAX_LAUNCH_ARG_CHARS)) {
      throw badRequest(`"agent.args" must be at most ${MAX_LAUNCH_ARGS} strings`);
    }
    args = a.args as string[];
    const bad = args.find(hasControlCharacter);
    if (bad !== undefined) throw badRequest(`"agent.args" has an argument with a control character (a newline, a tab…), which cannot be typed at a shell prompt: ${JSON.stringify(bad.slice(0, 60))}`);
  }
  let sleepAfterMs: number | undefined;
  if (a.sleepAfterMs !== undefined) {
    if (typeof a.sleepAfterMs !== 'number' || !Number.isInteger(a.sleepAfterMs) || a.sleepAfterMs < 0 || a.sleepAfterMs > MAX_SLEEP_AFTER_MS) {
      throw badRequest(`"agent.sleepAfterMs" must be a whole number of milliseconds from 0 (never) to ${MAX_SLEEP_AFTER_MS}`);
    }
    sleepAfterMs = a.sleepAfterMs;
  }
  if (!isShellProgram(argv[0])) throw badRequest(`an agent runs in a shell (so the session stays when it ends or sleeps): "argv" must start a shell, not ${JSON.stringify(argv[0])}`);
  return { kind: a.kind, ...(args !== undefined ? { args } : {}), ...(sleepAfterMs !== undefined ? { sleepAfterMs } : {}) };
}
