import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { API_ROUTES, COMMAND_NUMBER_PATTERN, type CommandOutputReply } from '../../protocol/api/index.js';

type OutputView = CommandOutputReply;

export const outputVerb: Verb = {
  name: 'output',
  summary: "print one command's output",
  usage: `tend output TARGET (--cmd N | --last) [--json]

Prints the exact output of command N (from \`tend commands\`), or of the
last one, as the session's screen holds it. While the command runs, prints
what it has written so far.

  -c, --cmd N   the command's number
  -l, --last    the last command (the default)
  -j, --json    { number, commandLine, text, complete, exitCode }`,
  options: { ...jsonOption, cmd: { type: 'string', short: 'c' }, last: { type: 'boolean', short: 'l' } },
  operands: 'TARGET',
  async run({ args, client, stdout, stderr }) {
    const target = args.positionals[0]!;
    const cmd = args.values.cmd;
    if (typeof cmd === 'string' && args.values.last) throw usageError('give --cmd N or --last, not both');
    if (typeof cmd === 'string' && !COMMAND_NUMBER_PATTERN.test(cmd)) throw usageError(`--cmd takes a command number from \`tend commands\`, not "${cmd}"`);
    const q = new URLSearchParams({ cmd: typeof cmd === 'string' ? cmd : 'last' });
    const out = await client.callRoute<OutputView>(API_ROUTES.commandOutput, { target }, undefined, Object.fromEntries(q));
    if (args.values.json) {
      printJson(stdout, out);
      return 0;
    }
    stdout.write(out.text);
    if (!out.complete) stderr.write(`tend: command ${out.number} is still running; this is its output so far\n`);
    return 0;
  },
};
