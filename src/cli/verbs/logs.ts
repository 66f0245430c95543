import { closeSync } from 'node:fs';
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { readLastLines } from '../server-log/last-lines.js';
import { followLog } from '../server-log/follow.js';

const DEFAULT_LINES = 100;

export const logsVerb: Verb = {
  name: 'logs',
  summary: "print the server's log",
  usage: `tend logs [--lines N] [--follow] [--json]

Prints the last lines of the server's log (TEND_HOME/logs/server.log, which
\`tend server status\` names): what it started, recovered and stopped, and
the errors it met. Reading the log never starts a server.

  -n, --lines N   how many lines (default ${DEFAULT_LINES}; 0 for none, with --follow)
  -f, --follow    go on printing lines as the server writes them, across the
                  log's rotation, until Ctrl-C
  -j, --json      { log, lines } (not with --follow)`,
  options: { ...jsonOption, lines: { type: 'string', short: 'n' }, follow: { type: 'boolean', short: 'f' } },
  operands: '',
  async run({ args, client, stdout, stderr }) {
    const count = lineCount(args.values.lines);
    const follow = args.values.follow === true;
    const json = args.values.json === true;
    if (follow && json) throw usageError('--json prints the lines once; it does not go with --follow');
    const log = client.paths.serverLog;

    let tail: ReturnType<typeof readLastLines> | null = null;
    try {
      tail = readLastLines(log, `${log}.1`, count);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`cannot read the server log ${log}: ${(err as Error).message}`);
      if (!follow) throw new CliError(`no server log at ${log}: the server writes it once it has started (TEND_HOME ${client.paths.home})`);
      stderr.write(`tend: no server log at ${log} yet; waiting for the server to write it\n`);
    }
    if (!follow) {
      closeSync(tail!.fd);
      const text = tail!.text.toString('utf8');
      if (json) printJson(stdout, { log, lines: text === '' ? [] : text.replace(/\n$/, '').split('\n') });
      else stdout.write(tail!.text);
      return 0;
    }
    if (tail) stdout.write(tail.text);
    // Ctrl-C is how a follow ends: a normal end, not a failure.
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.once('SIGINT', onInterrupt);
    try {
      await followLog({ path: log, fd: tail?.fd ?? null, offset: tail?.endOffset ?? 0, write: (bytes) => stdout.write(bytes), signal: stop.signal });
    } finally {
      process.off('SIGINT', onInterrupt);
    }
    return 0;
  },
};

function lineCount(value: unknown): number {
  if (value === undefined) return DEFAULT_LINES;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw usageError(`--lines takes a number of lines, not "${String(value)}"`);
  return Number(value);
}
