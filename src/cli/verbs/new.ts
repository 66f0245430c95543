import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { shellLine, type SessionView } from '../format.js';
import { envNameProblem } from '../../protocol/env-name.js';
import { API_ROUTES, DEFAULT_SESSION_COLS, DEFAULT_SESSION_ROWS } from '../../protocol/api/index.js';
import { checkDirectory, checkName, checkTerm, commandAfterDash, fittedSize, parseSize } from '../argument-checks.js';
import type { VerbArgs } from '../verb.js';
import { agentLaunchRequest, parseSleepAfter, readAgentKind } from '../agent/launch-request.js';
import { startAgentSession } from '../agent/start-agent.js';

/**
 * This process's environment for a session it starts, without TERM: that
 * names the terminal `tend` runs in, not the session's (the server gives it
 * xterm-256color, the model every viewer renders, unless --term says otherwise).
 */
export function callerEnvironment(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  delete env.TERM;
  return env;
}

/**
 * `--env NAME=VALUE`, given any number of times, as entries over the
 * caller's environment. The name ends at the first "=", so it can hold none;
 * an empty name, or no "=" at all, is refused here, before the server is asked.
 */
export function parseEnvOptions(given: unknown): Record<string, string> {
  const entries = Array.isArray(given) ? given : given === undefined ? [] : [given];
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const text = String(entry);
    const eq = text.indexOf('=');
    if (eq === -1) throw usageError(`--env must look like NAME=VALUE, not "${text}"`);
    const name = text.slice(0, eq);
    const problem = envNameProblem(name);
    if (problem !== null) throw usageError(`--env "${text}": the variable's name ${problem}; give NAME=VALUE with a NAME`);
    const value = text.slice(eq + 1);
    // The server would refuse it by its field ("env.TERM"); said here by the option it was typed in.
    if (name === 'TERM' && value !== '') checkTerm('--env TERM', value);
    env[name] = value;
  }
  return env;
}

/**
 * The body of POST /v1/sessions from the options `tend new` and `tend agent`
 * share (those a verb lacks take their defaults): every value checked here,
 * before the session starts.
 */
export function sessionRequestBody(values: VerbArgs['values'], stdout: NodeJS.WriteStream): Record<string, unknown> {
  const size = typeof values.size === 'string'
    ? parseSize('--size', values.size)
    : stdout.isTTY ? fittedSize(stdout.columns, stdout.rows) : { cols: DEFAULT_SESSION_COLS, rows: DEFAULT_SESSION_ROWS };
  const body: Record<string, unknown> = {
    cwd: typeof values.cwd === 'string' ? checkDirectory('--cwd', values.cwd) : process.cwd(),
    cols: size.cols,
    rows: size.rows,
    env: { ...callerEnvironment(), ...parseEnvOptions(values.env) },
  };
  if (typeof values.term === 'string') body.term = checkTerm('--term', values.term);
  if (typeof values.name === 'string') body.name = checkName('--name', values.name);
  if (values['no-shell-integration']) body.shellIntegration = false;
  return body;
}

export const newVerb: Verb = {
  name: 'new',
  summary: 'start a new session (default: your shell)',
  usage: `tend new [--name N] [--cwd DIR] [--size COLSxROWS] [--term TERM] [--env NAME=VALUE]... [--workspace W] [--json] [-- CMD ARGS...]
       tend new --agent claude|codex|gemini [--sleep-after TIME] [OPTIONS...] [-- AGENT ARGS...]

Starts a terminal session whose program keeps running whatever happens to
its viewers or the server, and prints its id. With --agent, the session
runs your shell and tend starts the agent in it, as \`tend agent\` does:
what follows -- is the agent's arguments.

  -n, --name N          name it, to target it later as :N
  -C, --cwd DIR         working directory (default: the current one)
  -s, --size COLSxROWS  terminal size (default: this terminal's, else 80x24)
  -t, --term TERM       the session's TERM (default xterm-256color, what every
                        viewer's model implements, whatever this terminal is)
  -e, --env NAME=VALUE  set a variable for the program (over this environment);
                        give it once per variable
  -w, --workspace W     place it in workspace W (created if missing), beside its last session
      --no-shell-integration  start a shell without tend's prompt marks (await needs them)
      --agent KIND      start the AI agent KIND (claude, codex or gemini) in the
                        session's shell, with tend's hooks
      --sleep-after TIME  with --agent: idle this long, the agent is put
                          to sleep (90s, 10m, 2h; 0: never; default 30m)
  -j, --json            print the session as JSON`,
  options: {
    ...jsonOption, name: { type: 'string', short: 'n' }, cwd: { type: 'string', short: 'C' }, size: { type: 'string', short: 's' }, term: { type: 'string', short: 't' },
    env: { type: 'string', short: 'e', multiple: true }, workspace: { type: 'string', short: 'w' }, 'no-shell-integration': { type: 'boolean' },
    agent: { type: 'string' }, 'sleep-after': { type: 'string' },
  },
  operands: '[CMD...]',
  afterDash: 'CMD ARGS...',
  async run({ args, client, stdout, stderr }) {
    if (args.rest !== null && args.positionals.length > 0 && args.values.agent === undefined) {
      throw usageError(`put the whole command after --: ${shellLine(['tend', 'new', '--', ...args.positionals, ...args.rest])}`);
    }
    // Every value is checked before the session starts: a refused --workspace must not leave a session behind.
    const workspace = typeof args.values.workspace === 'string' ? checkName('--workspace', args.values.workspace) : undefined;
    const body = sessionRequestBody(args.values, stdout);
    let session: SessionView;
    if (typeof args.values.agent === 'string') {
      const kind = readAgentKind('--agent', args.values.agent);
      if (args.positionals.length > 0) {
        throw usageError(`with --agent the session runs your shell; put the agent's arguments after --: ${shellLine(['tend', 'new', '--agent', kind, '--', ...args.positionals, ...(args.rest ?? [])])}`);
      }
      const sleepAfterMs = typeof args.values['sleep-after'] === 'string' ? parseSleepAfter('--sleep-after', args.values['sleep-after']) : undefined;
      session = await startAgentSession(client, body, agentLaunchRequest(kind, args.rest, sleepAfterMs), stderr);
    } else {
      if (args.values['sleep-after'] !== undefined) throw usageError('--sleep-after is for an agent: give --agent KIND too');
      const argv = commandAfterDash(args.rest ?? args.positionals);
      if (argv !== null) body.argv = argv;
      session = await client.callRoute<SessionView>(API_ROUTES.createSession, {}, body);
    }
    if (workspace !== undefined) {
      await client.callRoute(API_ROUTES.addToWorkspace, { name: workspace }, { session: session.id });
    }
    if (args.values.json) printJson(stdout, session);
    else stdout.write(`${session.id}\n`);
    return 0;
  },
};
