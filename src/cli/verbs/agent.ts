// `tend agent`: AI coding agents in tend sessions. `tend agent claude` starts
// one in a new session (the session runs the user's shell; the server types
// the agent's command, with tend's hooks, at its prompt); `sleep` and `wake`
// ask the server to end an idle agent with its screen kept, or to resume it;
// `status` shows what tend knows of each agent, from the agent's own hooks.
import type { Verb, VerbArgs } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { colourFor, shellLine } from '../format.js';
import { AGENT_KINDS, API_ROUTES, isAgentKind, type AgentActionReply, type ListedSession, type SessionInfo } from '../../protocol/api/index.js';
import { agentLaunchRequest, listed, parseSleepAfter, unknownAgentOrAction } from '../agent/launch-request.js';
import { startAgentSession } from '../agent/start-agent.js';
import { agentTable, sessionTarget, stateText, type SessionWithAgent } from '../agent/agent-table.js';
import { sessionRequestBody } from './new.js';
import { attachVerb } from './attach.js';

const ACTIONS = ['sleep', 'wake', 'status'] as const;
/** Options only starting an agent takes. */
const START_OPTIONS = ['name', 'cwd', 'sleep-after', 'attach'] as const;

export const agentVerb: Verb = {
  name: 'agent',
  summary: 'start an AI coding agent in a session; sleep, wake or show agents',
  usage: `tend agent claude|codex|gemini|sleep|wake|status [TARGET] [--name N] [--cwd DIR] [--sleep-after TIME] [--attach] [--json] [-- ARGS...]

  tend agent claude|codex|gemini [--name N] [--cwd DIR] [--sleep-after TIME] [--attach] [-- ARGS...]
      Starts the agent (Claude Code, Codex, Gemini CLI) in a new session: the
      session runs your shell and tend starts the agent in it, with tend's
      hooks, so tend knows its state (\`tend ls\`, \`tend agent status\`),
      \`tend await\` gets its answers, and it is put to sleep when idle. ARGS
      go to the agent. Prints the session's id. Codex and Gemini CLI read
      hooks only from their own settings: \`tend hooks install codex\` puts
      tend's there (a line on stderr says so when they are missing).
  tend agent sleep TARGET
      Ends the session's idle agent its own way, its screen kept; input or
      \`tend agent wake\` resumes the same conversation.
  tend agent wake TARGET
      Resumes a sleeping agent in the directory it ran in.
  tend agent status [TARGET]
      The agents of all sessions (or of TARGET): kind, state, since when,
      conversation id, last turn, and any warning.

  -n, --name N          name the new session, to target it later as :N
  -C, --cwd DIR         where the agent runs (default: the current directory)
      --sleep-after TIME  idle this long, the agent is put to sleep (90s,
                          10m, 2h; a bare number is minutes; 0: never;
                          default: the server's, 30m unless
                          TEND_AGENT_SLEEP_MINUTES or its config says)
  -a, --attach          attach to the new session at once
  -j, --json            print the session (start), the agent (sleep, wake) or
                        the agents (status) as JSON`,
  options: {
    ...jsonOption,
    name: { type: 'string', short: 'n' },
    cwd: { type: 'string', short: 'C' },
    'sleep-after': { type: 'string' },
    attach: { type: 'boolean', short: 'a' },
  },
  afterDash: 'ARGS...',
  async run(ctx) {
    const { args } = ctx;
    const [word, ...more] = args.positionals;
    if (word === undefined) throw usageError(`missing what to do: an agent to start (${listed(AGENT_KINDS)}), or ${listed(ACTIONS)}`, { usage: usageLine() });
    if (isAgentKind(word)) {
      if (more.length > 0) throw usageError(`put the agent's arguments after --, as in \`${shellLine(['tend', 'agent', word, '--', ...more, ...(args.rest ?? [])])}\``, { usage: usageLine() });
      return start(ctx, word);
    }
    if (!isAction(word)) throw unknownAgentOrAction(word, ACTIONS);
    const action = word;
    refuseStartOptions(action, args);
    if (args.rest !== null && args.rest.length > 0) throw usageError(`tend agent ${action} takes nothing after --`, { usage: usageLine() });
    const [target, extra] = more;
    if (extra !== undefined) throw usageError(`unexpected argument ${JSON.stringify(extra)}`, { usage: usageLine() });
    if (action === 'status') return status(ctx, target);
    if (target === undefined) throw usageError(`missing TARGET (a session: its id, :name, or index from \`tend ls\`)`, { usage: `tend agent ${action} TARGET [--json]` });
    return sleepOrWake(ctx, action, target);
  },
};

function isAction(word: string): word is (typeof ACTIONS)[number] {
  return (ACTIONS as readonly string[]).includes(word);
}

function usageLine(): string {
  return agentVerb.usage.split('\n')[0]!;
}

function refuseStartOptions(action: string, args: VerbArgs): void {
  const given = START_OPTIONS.find((name) => args.values[name] !== undefined);
  if (given !== undefined) throw usageError(`--${given} is for starting an agent, not for \`tend agent ${action}\``, { usage: usageLine() });
}

type Context = Parameters<Verb['run']>[0];

async function start({ args, client, stdout, stderr }: Context, kind: (typeof AGENT_KINDS)[number]): Promise<number> {
  const attach = args.values.attach === true;
  // Checked before the session starts: an attach that cannot happen must not leave an agent running unseen.
  if (attach && !process.stdin.isTTY) throw usageError('--attach needs a terminal on its input; leave it out and `tend attach` the session later');
  if (attach && args.values.json) throw usageError('--attach and --json do not go together: the terminal is the session\'s once attached');
  const body = sessionRequestBody(args.values, stdout);
  const sleepAfterMs = typeof args.values['sleep-after'] === 'string' ? parseSleepAfter('--sleep-after', args.values['sleep-after']) : undefined;
  const session = await startAgentSession(client, body, agentLaunchRequest(kind, args.rest, sleepAfterMs), stderr);
  if (attach) return attachVerb.run({ args: { values: {}, positionals: [session.id], rest: null }, client, stdout, stderr });
  if (args.values.json) printJson(stdout, session);
  else stdout.write(`${session.id}\n`);
  return EXIT.ok;
}

async function sleepOrWake({ args, client, stdout }: Context, action: 'sleep' | 'wake', target: string): Promise<number> {
  const route = action === 'sleep' ? API_ROUTES.sleepAgent : API_ROUTES.wakeAgent;
  const reply = await client.callRoute<AgentActionReply>(route, { target }, {});
  if (args.values.json) printJson(stdout, reply);
  else stdout.write(`${target}: ${reply.agent.kind} ${stateText(reply.agent)}\n`);
  return EXIT.ok;
}

async function status({ args, client, stdout }: Context, target: string | undefined): Promise<number> {
  const json = args.values.json === true;
  if (target !== undefined) {
    const session = await client.callRoute<SessionInfo>(API_ROUTES.getSession, { target });
    if (!session.agent) {
      throw new CliError(`session ${sessionTarget(session)} has no agent: start one with \`tend agent claude\` (or codex, gemini), or install tend's hooks for agents you start yourself (\`tend hooks install\`)`, EXIT.failed, { code: 'no_agent' });
    }
    const one = withAgent(session, session.agent);
    if (json) printJson(stdout, statusJson(one));
    else stdout.write(agentTable([one], { colour: colourFor(stdout) }));
    return EXIT.ok;
  }
  const sessions = await client.callRoute<ListedSession[]>(API_ROUTES.listSessions);
  const agents = sessions.flatMap((s) => (s.agent ? [withAgent(s, s.agent)] : []));
  if (json) printJson(stdout, agents.map(statusJson));
  else if (agents.length === 0) stdout.write('no agents (start one with `tend agent claude`, codex or gemini)\n');
  else stdout.write(agentTable(agents, { colour: colourFor(stdout) }));
  return EXIT.ok;
}

function withAgent(s: Pick<SessionInfo, 'id' | 'name'> & { index?: number }, agent: NonNullable<SessionInfo['agent']>): SessionWithAgent {
  return { id: s.id, name: s.name, ...(s.index !== undefined ? { index: s.index } : {}), agent };
}

/** One agent in --json: the session's id (as sleep and wake answer it), its name and index, and the API's AgentInfo. */
function statusJson(s: SessionWithAgent): Record<string, unknown> {
  return { session: s.id, name: s.name, ...(s.index !== undefined ? { index: s.index } : {}), agent: s.agent };
}
