// Throughput to an attached viewer: a large `cat` in a session while a
// `tend attach` client shows it on a PTY that ptytool drains, against tmux
// and the raw PTY on the same streams, alternating in each round. `tend
// attach` is the native viewer (bin/tend's default); the Node viewer
// (TEND_VIEWER=node) runs in the same rounds, so the change shows.
//
// tend and "tmux, released" are timed the same way (ptytool watch): the
// session's program waits on a FIFO; the viewer attaches and paints; the
// clock starts when the program is let go and stops when the marker the
// program prints after the stream comes out of the viewer. That is the time
// until the program has finished and the viewer has shown all of it.
// "tmux, client creates" is the baseline's method (the attaching client
// starts the session, timed until the client exits once the pane has died),
// kept so these figures line up with the earlier ones. MB/s is 10^6 bytes of
// the stream file per second on every side.

import { mkdirSync, openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import type { StreamFile } from '../lib/streams.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { endTmuxServer, TMUX_HISTORY_ROWS, tmuxArgv, TmuxServer, uniqueTmuxName } from '../lib/tmux.js';
import {
  gate, gatedCatScript, viewersToMeasure, plainLaunch, tendAttachLaunch, VIEWER_SETTLE_MS, viewerLabel, watchUntilMarker, type ViewerKind,
} from '../lib/attach-viewer.js';

interface Sample {
  mbPerS: number;
  /** bytes the viewer wrote to its terminal for the stream */
  viewerBytes: number;
}

const RAW = 'raw PTY';
const TMUX_CREATES = 'tmux attach, client creates';
const TMUX_RELEASED = 'tmux attach, released';
const TEND = viewerLabel('native');
const NODE_VIEWER = viewerLabel('node');

/** A long-running server's parser is compiled; a fresh one warms on this much of each stream, unmeasured. */
const WARMUP_BYTES = 1_000_000;

function mbPerS(s: StreamFile, ms: number): number {
  return s.bytes / 1e6 / (ms / 1e3);
}

function rawSide(ctx: BenchContext, s: StreamFile): Side<Sample> {
  return {
    name: `${s.name}/${RAW}`,
    async run() {
      const r = await ctx.ptytool.drain(['cat', s.path]);
      return { mbPerS: mbPerS(s, r.elapsed_ms), viewerBytes: r.bytes };
    },
  };
}

function tmuxCreatesSide(ctx: BenchContext, s: StreamFile): Side<Sample> {
  return {
    name: `${s.name}/${TMUX_CREATES}`,
    async run() {
      const name = uniqueTmuxName();
      try {
        const r = await ctx.ptytool.drain(tmuxArgv(name, 'set', '-g', 'history-limit', String(TMUX_HISTORY_ROWS), ';',
          'new-session', `cat '${s.path}'`));
        return { mbPerS: mbPerS(s, r.elapsed_ms), viewerBytes: r.bytes };
      } finally {
        await endTmuxServer(name, ctx.env);
      }
    },
  };
}

function tmuxReleasedSide(ctx: BenchContext, s: StreamFile, tmux: TmuxServer, dir: string): Side<Sample> {
  let n = 0;
  return {
    name: `${s.name}/${TMUX_RELEASED}`,
    async run() {
      const g = gate(dir);
      const id = `tp${n++}`;
      await tmux.run(['new-session', '-d', '-s', id, '-x', '80', '-y', '24', gatedCatScript(g.fifo, s.path, g.head, g.tail)]);
      try {
        const r = await watchUntilMarker(ctx, plainLaunch(ctx, tmuxArgv(tmux.name, 'attach', '-t', id)), g.fifo, g.marker);
        return { mbPerS: mbPerS(s, r.elapsed_ms), viewerBytes: r.bytes };
      } finally {
        await tmux.run(['kill-session', '-t', id]);
      }
    },
  };
}

function tendSide(ctx: BenchContext, s: StreamFile, server: BenchServer, dir: string, viewer: ViewerKind): Side<Sample> {
  return {
    name: `${s.name}/${viewerLabel(viewer)}`,
    async run() {
      const g = gate(dir);
      const session = await server.createSession(['sh', '-c', gatedCatScript(g.fifo, s.path, g.head, g.tail)]);
      try {
        const r = await watchUntilMarker(ctx, tendAttachLaunch(ctx, server, session.id, viewer), g.fifo, g.marker);
        return { mbPerS: mbPerS(s, r.elapsed_ms), viewerBytes: r.bytes };
      } finally {
        await server.deleteSession(session.id);
      }
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
  // Ends just before an ESC (or after a newline): an escape sequence or a
  // character cut in half would swallow the start of the marker after it.
  const esc = buf.lastIndexOf(0x1b);
  const end = esc > 0 ? esc : buf.lastIndexOf(0x0a) + 1 || buf.length;
  const path = join(dir, `warmup-${s.name}.bin`);
  writeFileSync(path, buf.subarray(0, end));
  return { name: `warmup-${s.name}`, path, bytes: end };
}

export const attachThroughputSuite: Suite = {
  name: 'attach-throughput',
  title: 'Throughput to an attached viewer: tend attach vs tmux attach vs raw PTY, MB/s',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const { viewers, missing: nativeMissing } = viewersToMeasure(ctx.root);
    const viewerSides = viewers.map(viewerLabel);
    const sideNames = [RAW, TMUX_CREATES, TMUX_RELEASED, ...viewerSides];
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const dir = join(ctx.tmpDir, 'attach-throughput');
    mkdirSync(dir, { recursive: true });
    const server = await BenchServer.start(ctx);
    const tmux = ctx.owned.add(await TmuxServer.start(ctx.env));
    try {
      // warm the server's parser once per stream (a long-running server's is); --quick's single round goes cold
      if (!ctx.quick) for (const s of ctx.streams) await tendSide(ctx, prefixOf(s, dir), server, dir, viewers[0]!).run(0);
      const sides = ctx.streams.flatMap((s) => [rawSide(ctx, s), tmuxCreatesSide(ctx, s),
        tmuxReleasedSide(ctx, s, tmux, dir), ...viewers.map((viewer) => tendSide(ctx, s, server, dir, viewer))]);
      const samples = await alternate(rounds, sides, (side, round, x) =>
        ctx.log(`  round ${round + 1} ${side}: ${x.mbPerS.toFixed(1)} MB/s, viewer wrote ${(x.viewerBytes / 1e6).toFixed(1)} MB`));

      const mb = (stream: string, side: string): number[] => field(samples, `${stream}/${side}`, (x) => x.mbPerS);
      const f = (xs: number[]): string => formatSummary(summarize(xs));
      const rows = ctx.streams.map((s) => [s.name, `${(s.bytes / 1e6).toFixed(1)} MB`, ...sideNames.map((side) => f(mb(s.name, side)))]);
      // the native viewer where it is built, else the Node one: the comparison is with whichever `tend attach` runs
      const tend = nativeMissing ? NODE_VIEWER : TEND;
      const wrote = (stream: string, side: string): string => f(field(samples, `${stream}/${side}`, (x) => x.viewerBytes / 1e6));
      const ratioRows = ctx.streams.map((s) => [s.name,
        f(roundRatios(mb(s.name, tend), mb(s.name, TMUX_RELEASED))),
        f(roundRatios(mb(s.name, tend), mb(s.name, TMUX_CREATES))),
        f(roundRatios(mb(s.name, tend), mb(s.name, RAW))),
        nativeMissing ? '—' : f(roundRatios(mb(s.name, TEND), mb(s.name, NODE_VIEWER))),
        wrote(s.name, tend),
        nativeMissing ? '—' : wrote(s.name, NODE_VIEWER),
        wrote(s.name, TMUX_RELEASED)]);
      return {
        tables: [
          {
            title: `Throughput to an attached viewer, MB/s (80x24; ${rounds} round${rounds > 1 ? 's' : ''})`,
            columns: ['stream', 'size', ...sideNames],
            rows,
          },
          {
            title: 'Same-round ratios, and what each viewer wrote',
            columns: ['stream', 'tend / tmux released', 'tend / tmux client creates', 'tend / raw', 'tend / Node viewer', 'tend wrote, MB', 'Node viewer wrote, MB', 'tmux client wrote, MB'],
            rows: ratioRows,
            notes: [
              'raw PTY: `ptytool drain -- cat FILE`, spawn until EIO.',
              'tmux attach, client creates: `ptytool drain -- tmux -L NAME -f /dev/null set -g history-limit 10000 \\; new-session "cat FILE"` (the baseline\'s method; includes the client\'s start).',
              `tmux attach, released / tend attach: the session runs \`read go < FIFO; cat FILE; printf MARKER; exec cat\`; \`ptytool watch --go FIFO --until MARKER -- tmux attach -t ID\` (or \`bin/tend attach ID\`, the native viewer; with TEND_VIEWER=node the Node viewer) waits for the viewer's first paint and ${VIEWER_SETTLE_MS} ms of quiet, then writes the FIFO and times until MARKER comes out of the viewer.`,
              'tmux paints only the latest state of a fast pane, so its client writes less than the stream; tend forwards the stream to a viewer that keeps up, or a fresh snapshot to one that lags more than 512 KiB (the written MB shows which way each went).',
              ctx.quick
                ? 'With --quick the tend server is not warmed first: its single round starts with a cold parser.'
                : `Before the rounds the tend server shows the first ${WARMUP_BYTES / 1e6} MB of each stream once, unmeasured (a long-running server's parser is warm).`,
              'Target (issues 4, 7, 29): tend ≥ tmux attach on every stream.',
              ...(nativeMissing ? [`The native viewer's rows are left out (tend is the Node viewer): ${nativeMissing}.`] : []),
            ],
          },
        ],
        data: Object.fromEntries(samples),
      };
    } finally {
      tmux.dispose();
      await server.close();
    }
  },
};
