import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { ago, table } from '../format.js';
import type { CommandRecord } from '../../protocol/api/index.js';
import { API_ROUTES } from '../../protocol/api/index.js';

export type CommandRow = CommandRecord;

function duration(c: CommandRow, now = Date.now()): string {
  const ms = (c.endedAt ?? now) - c.startedAt;
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

export const commandsVerb: Verb = {
  name: 'commands',
  summary: "list the commands a session's shell ran",
  usage: `tend commands TARGET [--json]

Lists the commands the session's shell integration reported: number, exit
status, when, how long, where, and the command line. \`tend output TARGET
--cmd N\` prints one's output.

  -j, --json   an array of { number, commandLine, exitCode, running, startedAt, endedAt, cwd }`,
  options: { ...jsonOption },
  operands: 'TARGET',
  async run({ args, client, stdout }) {
    const target = args.positionals[0]!;
    const commands = await client.callRoute<CommandRow[]>(API_ROUTES.listCommands, { target });
    if (args.values.json) {
      printJson(stdout, commands);
      return 0;
    }
    if (commands.length === 0) {
      stdout.write('no commands indexed yet (the shell reports them through its integration: `tend shell-integration --help`)\n');
      return 0;
    }
    const rows = [['#', 'EXIT', 'STARTED', 'TOOK', 'CWD', 'COMMAND']];
    for (const c of commands) {
      const exit = c.running ? 'running' : c.exitCode === null ? '?' : String(c.exitCode);
      rows.push([String(c.number), exit, ago(c.startedAt), duration(c), c.cwd ?? '-', c.commandLine.replace(/\s*\n\s*/g, ' ⏎ ')]);
    }
    stdout.write(table(rows));
    return 0;
  },
};
