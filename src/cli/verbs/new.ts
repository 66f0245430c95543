import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { shellLine, type SessionView } from '../format.js';
import { envNameProblem } from '../../protocol/env-name.js';
import { API_ROUTES, DEFAULT_SESSION_COLS, DEFAULT_SESSION_ROWS } from '../../protocol/api/index.js';
import { checkDirectory, checkName, checkTerm, commandAfterDash, fittedSize, parseSize } from '../argument-checks.js';

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

export const newVerb: Verb = {
  name: 'new',
  summary: 'start a new session (default: your shell)',
  usage: `tend new [--name N] [--cwd DIR] [--size COLSxROWS] [--term TERM] [--env NAME=VALUE]... [--workspace W] [--json] [-- CMD ARGS...]

Starts a terminal session whose program keeps running whatever happens to
its viewers or the server, and prints its id.

  -n, --name N          name it, to target it later as :N
  -C, --cwd DIR         working directory (default: the current one)
  -s, --size COLSxROWS  terminal size (default: this terminal's, else 80x24)
  -t, --term TERM       the session's TERM (default xterm-256color, what every
                        viewer's model implements, whatever this terminal is)
  -e, --env NAME=VALUE  set a variable for the program (over this environment);
                        give it once per variable
  -w, --workspace W     place it in workspace W (created if missing), beside its last session
      --no-shell-integration  start a shell without tend's prompt marks (await needs them)
  -j, --json            print the session as JSON`,
  options: { ...jsonOption, name: { type: 'string', short: 'n' }, cwd: { type: 'string', short: 'C' }, size: { type: 'string', short: 's' }, term: { type: 'string', short: 't' }, env: { type: 'string', short: 'e', multiple: true }, workspace: { type: 'string', short: 'w' }, 'no-shell-integration': { type: 'boolean' } },
  operands: '[CMD...]',
  afterDash: 'CMD ARGS...',
  async run({ args, client, stdout }) {
    if (args.rest !== null && args.positionals.length > 0) {
      throw usageError(`put the whole command after --: ${shellLine(['tend', 'new', '--', ...args.positionals, ...args.rest])}`);
    }
    // Every value is checked before the session starts: a refused --workspace must not leave a session behind.
    const size = typeof args.values.size === 'string'
      ? parseSize('--size', args.values.size)
      : stdout.isTTY ? fittedSize(stdout.columns, stdout.rows) : { cols: DEFAULT_SESSION_COLS, rows: DEFAULT_SESSION_ROWS };
    const workspace = typeof args.values.workspace === 'string' ? checkName('--workspace', args.values.workspace) : undefined;
    const body: Record<string, unknown> = {
      cwd: typeof args.values.cwd === 'string' ? checkDirectory('--cwd', args.values.cwd) : process.cwd(),
      cols: size.cols,
      rows: size.rows,
      env: { ...callerEnvironment(), ...parseEnvOptions(args.values.env) },
    };
    if (typeof args.values.term === 'string') body.term = checkTerm('--term', args.values.term);
    if (typeof args.values.name === 'string') body.name = checkName('--name', args.values.name);
    if (args.values['no-shell-integration']) body.shellIntegration = false;
    const argv = commandAfterDash(args.rest ?? args.positionals);
    if (argv !== null) body.argv = argv;
    const session = await client.callRoute<SessionView>(API_ROUTES.createSession, {}, body);
    if (workspace !== undefined) {
      await client.callRoute(API_ROUTES.addToWorkspace, { name: workspace }, { session: session.id });
    }
    if (args.values.json) printJson(stdout, session);
    else stdout.write(`${session.id}\n`);
    return 0;
  },
};
