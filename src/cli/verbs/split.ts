import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import type { SessionView } from '../format.js';
import { callerEnvironment } from './new.js';
import { checkDirectory, checkName, commandAfterDash } from '../argument-checks.js';
import type { SplitReply } from '../../protocol/api/index.js';
import { API_ROUTES } from '../../protocol/api/index.js';



export const splitVerb: Verb = {
  name: 'split',
  summary: 'start a session beside another in its workspace',
  usage: `tend split TARGET [--right | --down] [--name N] [--cwd DIR] [--json] [-- CMD ARGS...]

Starts a new session (default: your shell, in TARGET's directory) and puts
it right of or below TARGET in TARGET's workspace layout. A TARGET in no
workspace gets one ("default") made around it. Prints the new session's id.

  -r, --right      beside it, to the right (the default)
  -d, --down       below it
  -n, --name N     name the new session
  -C, --cwd DIR    working directory (default: TARGET's)
  -j, --json       { session, workspace }`,
  options: {
    ...jsonOption,
    right: { type: 'boolean', short: 'r' },
    down: { type: 'boolean', short: 'd' },
    name: { type: 'string', short: 'n' },
    cwd: { type: 'string', short: 'C' },
  },
  operands: 'TARGET',
  afterDash: 'CMD ARGS...',
  async run({ args, client, stdout }) {
    const target = args.positionals[0]!;
    if (args.values.right && args.values.down) throw usageError('give --right or --down, not both');
    const body: Record<string, unknown> = { direction: args.values.down ? 'down' : 'right', env: callerEnvironment() };
    if (typeof args.values.name === 'string') body.name = checkName('--name', args.values.name);
    if (typeof args.values.cwd === 'string') body.cwd = checkDirectory('--cwd', args.values.cwd);
    const argv = commandAfterDash(args.rest);
    if (argv !== null) body.argv = argv;
    const reply = await client.callRoute<SplitReply>(API_ROUTES.splitSession, { target }, body);
    if (args.values.json) printJson(stdout, reply);
    else stdout.write(`${reply.session.id}\n`);
    return 0;
  },
};
