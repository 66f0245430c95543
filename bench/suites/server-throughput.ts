// Parse throughput of the tend server: time from creating a session that
// `cat`s a stream until the server's screen has parsed all of it, against tmux
// detached on the same stream in the same round (its parse into its grid).
// MB/s is 10^6 bytes of the stream file per second for both sides.

import { mkdirSync, openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import type { StreamFile } from '../lib/streams.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { TmuxServer } from '../lib/tmux.js';

interface Sample {
  mbPerS: number;
  ms: number;
}

/** A long-running server has its parser compiled; a fresh one warms it on this much of each stream, unmeasured. */
const WARMUP_BYTES = 1_000_000;

/** Offset polls; at ~20 MB/s a 10 ms poll is under 1 % of a 4 MB stream's time. */
const OFFSET_POLL_MS = 10;

// `stty -opost` first, so the PTY passes the file's bytes unchanged and the
// holder offset at the end is exactly the file size. The program then idles
// instead of exiting: an exit would start a full checkpoint inside the timing.
function catArgv(file: string): string[] {
  return ['sh', '-c', 'stty -opost; cat "$0"; exec cat', file];
}

function tendSide(server: BenchServer, s: StreamFile): Side<Sample> {
  return {
    name: `${s.name}/tend server`,
    async run() {
      const start = performance.now();
      const session = await server.createSession(catArgv(s.path));
      await server.waitForOffset(session.id, s.bytes, 300_000, OFFSET_POLL_MS);
      await server.screen(session.id); // flushes: every fed byte is parsed when it answers
      const ms = performance.now() - start;
      await server.deleteSession(session.id);
      return { mbPerS: s.bytes / 1e6 / (ms / 1e3), ms };
    },
  };
}

function tmuxSide(tmux: TmuxServer, s: StreamFile): Side<Sample> {
  let n = 0;
  return {
    name: `${s.name}/tmux detached`,
    async run() {
      const id = `srv-${s.name}-${n++}`;
      const start = performance.now();
      await tmux.run(['new-session', '-d', '-s', id, `cat '${s.path}'; tmux wait-for -S ${id}`]);
      await tmux.run(['wait-for', id]);
      const ms = performance.now() - start;
      return { mbPerS: s.bytes / 1e6 / (ms / 1e3), ms };
    },
  };
}

function prefixOf(s: StreamFile, dir: string): StreamFile {
  const buf = Buffer.alloc(Math.min(WARMUP_BYTES, s.bytes));
  const fd = openSync(s.path, 'r');
  try {
    readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  const path = join(dir, `warmup-${s.name}.bin`);
  writeFileSync(path, buf);
  return { name: `warmup-${s.name}`, path, bytes: buf.length };
}

export const serverThroughputSuite: Suite = {
  name: 'server-throughput',
  title: 'Server parse throughput vs tmux detached, MB/s',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const server = await BenchServer.start(ctx);
    const tmux = ctx.owned.add(await TmuxServer.start(ctx.env));
    try {
      const dir = join(ctx.tmpDir, 'server-throughput');
      mkdirSync(dir, { recursive: true });
      for (const s of ctx.streams) await tendSide(server, prefixOf(s, dir)).run(0);
      const sides = ctx.streams.flatMap((s) => [tendSide(server, s), tmuxSide(tmux, s)]);
      const samples = await alternate(rounds, sides, (side, round, x) =>
        ctx.log(`  round ${round + 1} ${side}: ${x.mbPerS.toFixed(1)} MB/s`));
      const mb = (stream: string, side: string): number[] => field(samples, `${stream}/${side}`, (x) => x.mbPerS);
      const rows = ctx.streams.map((s) => {
        const tend = mb(s.name, 'tend server');
        const tm = mb(s.name, 'tmux detached');
        return [s.name, `${(s.bytes / 1e6).toFixed(1)} MB`, formatSummary(summarize(tend)), formatSummary(summarize(tm)),
          formatSummary(summarize(roundRatios(tend, tm)))];
      });
      return {
        tables: [{
          title: `Server parse throughput, MB/s (80x24, ${rounds} round${rounds > 1 ? 's' : ''})`,
          columns: ['stream', 'size', 'tend server', 'tmux detached', 'tend / tmux (same round)'],
          rows,
          notes: [
            'tend server: private server; from `POST /v1/sessions {argv: sh -c "stty -opost; cat FILE; exec cat"}` until `GET /v1/sessions/:id` shows offset = file size (polled every 10 ms), then one `GET .../screen` (which flushes the parser) has answered. Includes holder spawn.',
            'tmux detached: private server, `new-session -d "cat FILE; tmux wait-for -S id"` until `wait-for id` returns.',
            `Before the rounds the server parses the first ${WARMUP_BYTES / 1e6} MB of each stream once, unmeasured (a long-running server's parser is warm).`,
            'Target (issue 3): tend / tmux >= 1 on every stream.',
          ],
        }],
        data: Object.fromEntries(samples),
      };
    } finally {
      tmux.dispose();
      await server.close();
    }
  },
};
