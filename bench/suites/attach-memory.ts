// Memory of one attached viewer (issue 29: at most 2 MB RSS): `tend attach`
// as a user types it (bin/tend, the native viewer), the Node viewer
// (TEND_VIEWER=node) and a tmux client, each attached to a session or pane
// of the same size that holds 10 000 rows of history, alternating in each
// round. Read twice: once the viewer has painted and gone quiet, and again
// once 1 MB of coloured log text has gone through it. The viewer runs on an
// outer PTY that a holder reads (lib/outer-terminal.ts), so it stays up
// between the readings. RSS counts shared library pages once in every
// process that maps them; the private figure (smaps_rollup Private_Clean +
// Private_Dirty) is what one more attached viewer costs the machine.

import { closeSync, mkdirSync, openSync, readFileSync, readlinkSync, readSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gate, viewersToMeasure, plainLaunch, tendAttachLaunch, VIEWER_SETTLE_MS, type Launch, type ViewerKind } from '../lib/attach-viewer.js';
import { OuterTerminal } from '../lib/outer-terminal.js';
import { readProcessMemory } from '../lib/proc-memory.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { tmuxArgv, TmuxServer } from '../lib/tmux.js';

const OUTPUT_BYTES = 1_000_000;
/** room for the history plus the screen, on both sides */
const SCROLLBACK_ROWS = 20_000;

interface Reading {
  /** VmRSS */
  rssKb: number;
  /** VmHWM: the most the process has held at once so far */
  peakRssKb: number;
  pssKb: number;
  /** Private_Clean + Private_Dirty */
  privateKb: number;
}

interface Sample {
  /** the executable that was measured (bin/tend execs in place: tend-attach, node or tmux) */
  exe: string;
  painted: Reading;
  afterOutput: Reading;
  /** bytes the viewer wrote to its terminal: its paint, then the output */
  paintBytes: number;
  outputBytes: number;
}

const NATIVE = 'tend attach';
const NODE_VIEWER = 'tend attach (Node viewer)';
const TMUX = 'tmux attach (client)';
const VIEWER_SIDE: Record<ViewerKind, string> = { native: NATIVE, node: NODE_VIEWER };

function statusKb(pid: number, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${name} in /proc/${pid}/status`);
  return Number(m[1]);
}

function readingOf(pid: number): Reading {
  const m = readProcessMemory(pid);
  return { rssKb: statusKb(pid, 'VmRSS'), peakRssKb: statusKb(pid, 'VmHWM'), pssKb: m.pssKb, privateKb: m.privateKb };
}

/** The first ~1 MB of `file`, cut after a newline, so no escape sequence is left open before the marker. */
function outputChunk(file: string, dir: string): string {
  const buf = Buffer.alloc(OUTPUT_BYTES);
  const fd = openSync(file, 'r');
  let n: number;
  try {
    n = readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  const end = buf.subarray(0, n).lastIndexOf(0x0a) + 1 || n;
  const path = join(dir, 'output-1mb.bin');
  writeFileSync(path, buf.subarray(0, end));
  return path;
}

/** What the PTY hands the server for `fill`: each LF gains a CR (ONLCR). */
function ptyBytesOf(fill: Buffer): number {
  let lf = 0;
  for (const b of fill) if (b === 0x0a) lf++;
  return fill.length + lf;
}

/**
 * The program behind every viewer: the history, `filled` (a command saying
 * it is out), then, once let go, the output and the marker, then idle.
 */
function sessionScript(fill: string, filled: string, fifo: string, output: string, head: string, tail: string): string {
  return `cat '${fill}'; ${filled}; read go < '${fifo}'; cat '${output}'; printf '\\r\\n%s%s\\r\\n' '${head}' '${tail}'; exec cat`;
}

/** Attaches, reads the viewer's memory after its paint, lets the output go, reads again. */
async function measureViewer(ctx: BenchContext, launch: Launch, fifo: string, marker: string): Promise<Sample> {
  const outer = await OuterTerminal.start(ctx, launch);
  try {
    await outer.painted(VIEWER_SETTLE_MS);
    const exe = basename(readlinkSync(`/proc/${outer.pid}/exe`));
    const painted = readingOf(outer.pid);
    const paintBytes = outer.bytes;
    await writeFile(fifo, 'go\n');
    await outer.shown(marker, VIEWER_SETTLE_MS);
    const afterOutput = readingOf(outer.pid);
    return { exe, painted, afterOutput, paintBytes, outputBytes: outer.bytes - paintBytes };
  } finally {
    outer.dispose();
  }
}

export const attachMemorySuite: Suite = {
  name: 'attach-memory',
  title: 'Memory of one attached viewer: tend attach vs tmux attach, kB',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const { viewers, missing: nativeMissing } = viewersToMeasure(ctx.root);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const dir = join(ctx.tmpDir, 'attach-memory');
    mkdirSync(dir, { recursive: true });
    const text = ctx.streams.find((s) => s.name.startsWith('text')) ?? ctx.streams[0]!;
    const output = outputChunk(text.path, dir);
    const server = await BenchServer.start(ctx, { scrollbackRows: SCROLLBACK_ROWS });
    const tmux = ctx.owned.add(await TmuxServer.start(ctx.env, SCROLLBACK_ROWS));
    try {
      const historyBytes = ptyBytesOf(readFileSync(ctx.fill80.path));
      let n = 0;
      const tendSide = (viewer: ViewerKind): Side<Sample> => ({
        name: VIEWER_SIDE[viewer],
        async run() {
          const g = gate(dir);
          const session = await server.createSession(['sh', '-c', sessionScript(ctx.fill80.path, ':', g.fifo, output, g.head, g.tail)]);
          try {
            await server.waitForOffset(session.id, historyBytes);
            await server.screen(session.id); // flushes: every row of the history is parsed when it answers
            return await measureViewer(ctx, tendAttachLaunch(ctx, server, session.id, viewer), g.fifo, g.marker);
          } finally {
            await server.deleteSession(session.id);
          }
        },
      });
      const tmuxSide: Side<Sample> = {
        name: TMUX,
        async run() {
          const g = gate(dir);
          const id = `m${++n}`;
          await tmux.run(['new-session', '-d', '-s', id, '-x', '80', '-y', '24',
            sessionScript(ctx.fill80.path, `tmux wait-for -S filled-${id}`, g.fifo, output, g.head, g.tail)]);
          try {
            await tmux.run(['wait-for', `filled-${id}`]);
            return await measureViewer(ctx, plainLaunch(ctx, tmuxArgv(tmux.name, 'attach', '-t', id)), g.fifo, g.marker);
          } finally {
            await tmux.run(['kill-session', '-t', id]);
          }
        },
      };
      const sides = [...viewers.map(tendSide), tmuxSide];
      const samples = await alternate(rounds, sides, (side, round, s) =>
        ctx.log(`  round ${round + 1} ${side} (${s.exe}): painted RSS ${s.painted.rssKb} kB, private ${s.painted.privateKb} kB; ` +
          `after ${(s.outputBytes / 1e6).toFixed(2)} MB RSS ${s.afterOutput.rssKb} kB (peak ${s.afterOutput.peakRssKb}), private ${s.afterOutput.privateKb} kB`));

      const kb = (side: string, pick: (s: Sample) => number): number[] => field(samples, side, pick);
      const f = (xs: number[]): string => formatSummary(summarize(xs));
      const exes = (side: string): string => [...new Set((samples.get(side) ?? []).map((s) => s.exe))].join(', ') || '—';
      const rows = sides.flatMap((s): string[][] => [
        [`${s.name}, painted`, f(kb(s.name, (x) => x.painted.rssKb)), f(kb(s.name, (x) => x.painted.pssKb)), f(kb(s.name, (x) => x.painted.privateKb)),
          f(kb(s.name, (x) => x.painted.peakRssKb)), f(kb(s.name, (x) => x.paintBytes / 1e3))],
        [`${s.name}, after 1 MB of output`, f(kb(s.name, (x) => x.afterOutput.rssKb)), f(kb(s.name, (x) => x.afterOutput.pssKb)), f(kb(s.name, (x) => x.afterOutput.privateKb)),
          f(kb(s.name, (x) => x.afterOutput.peakRssKb)), f(kb(s.name, (x) => x.outputBytes / 1e3))],
      ]);
      const ratio = (a: string, b: string, pick: (s: Sample) => number): string => f(roundRatios(kb(a, pick), kb(b, pick)));
      const tend = nativeMissing ? NODE_VIEWER : NATIVE;
      const compareRows = [
        [`${tend} / tmux client, RSS after the output`, ratio(tend, TMUX, (x) => x.afterOutput.rssKb)],
        [`${tend} / tmux client, private after the output`, ratio(tend, TMUX, (x) => x.afterOutput.privateKb)],
        ...(nativeMissing ? [] : [
          ['Node viewer / tend attach, RSS after the output', ratio(NODE_VIEWER, NATIVE, (x) => x.afterOutput.rssKb)],
        ]),
      ];
      return {
        tables: [
          {
            title: `One attached viewer's memory, kB (80x24, 10 000 rows of history; ${rounds} round${rounds > 1 ? 's' : ''})`,
            columns: ['viewer', 'RSS', 'PSS', 'private', 'peak RSS so far', 'kB the viewer wrote'],
            rows,
            notes: [
              `tend attach: \`bin/tend attach ID\` (measured process: ${exes(NATIVE)}); Node viewer: the same with TEND_VIEWER=node (${exes(NODE_VIEWER)}); tmux: \`tmux attach -t ID\` on a private server (history-limit ${SCROLLBACK_ROWS}), the client process (${exes(TMUX)}); the tmux server's own memory is not counted, as the tend server's is not.`,
              `Each viewer runs on an 80x24 PTY read by a holder. Its session (or pane) first printed fill-80.bin (10 000 rows); "painted": ${VIEWER_SETTLE_MS} ms after the viewer's last byte of its first paint (tend paints the screen and 1 000 rows of history, tmux the screen); then the program cats the first ${(OUTPUT_BYTES / 1e6).toFixed(0)} MB of ${text.name}.bin and a marker: "after 1 MB of output", ${VIEWER_SETTLE_MS} ms after the marker came out of the viewer.`,
              'kB the viewer wrote: to its terminal, for its paint, then for the output (a viewer that fell behind was sent a fresh snapshot instead of part of it; tmux draws only the latest state).',
              'RSS and peak RSS from /proc/PID/status (VmRSS, VmHWM); PSS and private from /proc/PID/smaps_rollup (private: Private_Clean + Private_Dirty; RSS also counts shared libraries\' pages). The native viewer is linked statically where the C library allows: its RSS is its own binary\'s pages and its heap, and a lone viewer counts the binary\'s pages as private, which a second viewer would share.',
              'Target (issue 29): one attached viewer ≤ 2 MB RSS.',
              ...(nativeMissing ? [`The native viewer's rows are left out: ${nativeMissing}.`] : []),
            ],
          },
          {
            title: 'Same-round ratios',
            columns: ['comparison', 'ratio'],
            rows: compareRows,
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
