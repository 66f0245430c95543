// Memory per session of the tend server, against tmux in the same rounds:
// marginal server RSS per idle session (10 vs 60 `cat` sessions) and per
// session holding 10 000 rows of history at 80 and 200 columns, plus each
// holder's private memory, so the "idle ≤ 0.7 MB all told" (server
// share + holder) can be judged. The sessions' programs are not counted, on
// either side.

import { DEFAULT_LIVE_SCROLLBACK_ROWS, DEFAULT_SCROLLBACK_ROWS } from '../../src/server/screen/index.js';
import { existsSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readProcessMemory } from '../lib/proc-memory.js';
import { BenchServer, serverMissing, waitUntil, type BenchSession } from '../lib/server-instance.js';
import { settledRssKb } from '../lib/server-settle.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import { generateFill, type StreamFile } from '../lib/streams.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { TmuxServer } from '../lib/tmux.js';

const FEW_IDLE = 10;
const MANY_IDLE = 60;
const HISTORY_ROWS = 10_000;
const WIDTHS = [{ cols: 80, rows: 24 }, { cols: 200, rows: 50 }] as const;
/** quiet before a checkpoint: short, so the suite waits for them briefly */
const CHECKPOINT_QUIET_MS = 200;
const SETTLE_LIMIT_MS = 5000;
const FILL_TIMEOUT_MS = 300_000;
/** tmux commands per invocation: one client start for many sessions */
const TMUX_SESSIONS_PER_CALL = 25;

interface HistoryFigures {
  /** marginal server RSS per session, kB */
  serverKb: number;
  /** mean holder private memory of these sessions, kB */
  holderKb: number;
}

interface TendSample {
  rssFewKb: number;
  rssManyKb: number;
  idleServerKb: number;
  idleHolderKb: number;
  history: Record<string, HistoryFigures>;
  unsettled: string[];
}

interface TmuxSample {
  rssFewKb: number;
  rssManyKb: number;
  idleKb: number;
  historyKb: Record<string, number>;
}

function widthKey(w: { cols: number; rows: number }): string {
  return `${w.cols}x${w.rows}`;
}

function fillArgv(file: string): string[] {
  // exact bytes (no ONLCR), then idle: the session stays open with its history
  return ['sh', '-c', 'stty -opost; cat "$0"; exec cat', file];
}

async function meanHolderPrivateKb(sessions: BenchSession[]): Promise<number> {
  const kb = sessions.map((s) => (s.holderPid === null ? Number.NaN : readProcessMemory(s.holderPid).privateKb));
  return kb.reduce((a, b) => a + b, 0) / kb.length;
}

async function measureTend(ctx: BenchContext, fills: Map<string, StreamFile>, historySessions: number): Promise<TendSample> {
  const server = await BenchServer.start(ctx, { checkpointQuietMs: CHECKPOINT_QUIET_MS });
  try {
    const unsettled: string[] = [];
    const settle = async (what: string): Promise<number> => {
      const r = await settledRssKb(server.pid, SETTLE_LIMIT_MS);
      if (!r.settled) unsettled.push(what);
      return r.rssKb;
    };
    const idle: BenchSession[] = [];
    for (let i = 0; i < FEW_IDLE; i++) idle.push(await server.createSession(['cat']));
    const rssFewKb = await settle(`${FEW_IDLE} idle`);
    for (let i = FEW_IDLE; i < MANY_IDLE; i++) idle.push(await server.createSession(['cat']));
    const rssManyKb = await settle(`${MANY_IDLE} idle`);
    const idleHolderKb = await meanHolderPrivateKb(idle);

    const history: Record<string, HistoryFigures> = {};
    const fillGroup = async (w: { cols: number; rows: number }, fill: StreamFile): Promise<BenchSession[]> => {
      const sessions: BenchSession[] = [];
      for (let i = 0; i < historySessions; i++) sessions.push(await server.createSession(fillArgv(fill.path), w.cols, w.rows));
      for (const s of sessions) await server.waitForOffset(s.id, fill.bytes, FILL_TIMEOUT_MS, 50);
      for (const s of sessions) await server.screen(s.id);
      // each session checkpoints once after the quiet spell; its garbage belongs to the reading
      await waitUntil('checkpoints of the history sessions', () =>
        sessions.every((s) => existsSync(join(server.checkpointsDir, `${s.id}.ckpt`))), FILL_TIMEOUT_MS, 50);
      return sessions;
    };
    for (const w of WIDTHS) {
      const fill = fills.get(widthKey(w))!;
      // A first group, unmeasured, takes the one-time growth of parsing at all (the young
      // generation growing to its working size, compiled code); the second group is the figure.
      await fillGroup(w, fill);
      const before = await settle(`${historySessions} x ${HISTORY_ROWS} rows at ${widthKey(w)} (warm-up)`);
      const sessions = await fillGroup(w, fill);
      const after = await settle(`${historySessions} x ${HISTORY_ROWS} rows at ${widthKey(w)}`);
      history[widthKey(w)] = { serverKb: (after - before) / historySessions, holderKb: await meanHolderPrivateKb(sessions) };
    }
    return {
      rssFewKb, rssManyKb, idleServerKb: (rssManyKb - rssFewKb) / (MANY_IDLE - FEW_IDLE), idleHolderKb, history, unsettled,
    };
  } finally {
    await server.close();
  }
}

async function addTmuxSessions(tmux: TmuxServer, specs: Array<{ id: string; args: string[]; command: string }>): Promise<void> {
  for (let i = 0; i < specs.length; i += TMUX_SESSIONS_PER_CALL) {
    const args: string[] = [];
    for (const s of specs.slice(i, i + TMUX_SESSIONS_PER_CALL)) {
      if (args.length) args.push(';');
      args.push('new-session', '-d', '-s', s.id, ...s.args, s.command);
    }
    await tmux.run(args);
  }
}

async function measureTmux(ctx: BenchContext, fills: Map<string, StreamFile>, historySessions: number): Promise<TmuxSample> {
  const tmux = ctx.owned.add(await TmuxServer.start(ctx.env, HISTORY_ROWS));
  try {
    const idle = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ id: `idle${from + i}`, args: [], command: 'cat' }));
    // the server starts with one session ("keep")
    await addTmuxSessions(tmux, idle(1, FEW_IDLE));
    const rssFewKb = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
    await addTmuxSessions(tmux, idle(FEW_IDLE, MANY_IDLE));
    const rssManyKb = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
    const historyKb: Record<string, number> = {};
    const fillGroup = async (w: { cols: number; rows: number }, fill: StreamFile, group: string): Promise<void> => {
      const specs = Array.from({ length: historySessions }, (_, i) => {
        const id = `hist${w.cols}-${group}-${i}`;
        return { id, args: ['-x', String(w.cols), '-y', String(w.rows)], command: `cat '${fill.path}'; tmux wait-for -S ${id}; exec cat` };
      });
      await addTmuxSessions(tmux, specs);
      for (const s of specs) await tmux.run(['wait-for', s.id]);
    };
    for (const w of WIDTHS) {
      const fill = fills.get(widthKey(w))!;
      // measured the same way as tend: a warm-up group, then the measured one
      await fillGroup(w, fill, 'warm');
      const before = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
      await fillGroup(w, fill, 'measured');
      const after = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
      historyKb[widthKey(w)] = (after - before) / historySessions;
    }
    return { rssFewKb, rssManyKb, idleKb: (rssManyKb - rssFewKb) / (MANY_IDLE - FEW_IDLE), historyKb };
  } finally {
    tmux.dispose();
  }
}

export const serverMemorySuite: Suite = {
  name: 'server-memory',
  title: 'Server memory per session vs tmux',
  async run(ctx): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : Math.min(ctx.rounds, 3);
    const historySessions = ctx.quick ? 1 : 5;
    const dir = join(ctx.tmpDir, 'server-memory');
    mkdirSync(dir, { recursive: true });
    const fills = new Map(WIDTHS.map((w) => [widthKey(w), generateFill(dir, w.cols, HISTORY_ROWS)]));

    const tend: TendSample[] = [];
    const tmux: TmuxSample[] = [];
    for (let r = 0; r < rounds; r++) {
      const t = await measureTend(ctx, fills, historySessions);
      tend.push(t);
      ctx.log(`  round ${r + 1} tend: idle ${t.idleServerKb.toFixed(0)} kB + holder ${t.idleHolderKb.toFixed(0)} kB; ` +
        WIDTHS.map((w) => `${widthKey(w)} ${(t.history[widthKey(w)]!.serverKb / 1024).toFixed(1)} MB`).join(', ') +
        (t.unsettled.length ? ` (not settled: ${t.unsettled.join('; ')})` : ''));
      const m = await measureTmux(ctx, fills, historySessions);
      tmux.push(m);
      ctx.log(`  round ${r + 1} tmux: idle ${m.idleKb.toFixed(1)} kB; ` +
        WIDTHS.map((w) => `${widthKey(w)} ${(m.historyKb[widthKey(w)]! / 1024).toFixed(1)} MB`).join(', '));
    }

    const f = (xs: number[]): string => formatSummary(summarize(xs));
    const idleAll = tend.map((t) => t.idleServerKb + t.idleHolderKb);
    const rows: string[][] = [[
      'idle `cat` session, kB',
      f(tend.map((t) => t.idleServerKb)), f(tend.map((t) => t.idleHolderKb)), f(idleAll),
      f(tmux.map((m) => m.idleKb)), f(roundRatios(idleAll, tmux.map((m) => m.idleKb))),
    ]];
    for (const w of WIDTHS) {
      const k = widthKey(w);
      const all = tend.map((t) => (t.history[k]!.serverKb + t.history[k]!.holderKb) / 1024);
      const tm = tmux.map((m) => m.historyKb[k]! / 1024);
      rows.push([`${HISTORY_ROWS} rows of history at ${k}, MB`,
        f(tend.map((t) => t.history[k]!.serverKb / 1024)), f(tend.map((t) => t.history[k]!.holderKb / 1024)), f(all),
        f(tm), f(roundRatios(all, tm))]);
    }
    const unsettled = tend.flatMap((t) => t.unsettled);
    return {
      tables: [{
        title: `Memory per session: tend server + holder vs tmux (${rounds} round${rounds > 1 ? 's' : ''}, ${historySessions} history sessions per width)`,
        columns: ['session', 'tend server (marginal RSS)', 'holder (private)', 'tend all told', 'tmux server (marginal RSS)', 'tend / tmux (same round)'],
        rows,
        notes: [
          `Server RSS from /proc/PID/status, read once it has settled (two readings 250 ms apart within 1 %, at most ${SETTLE_LIMIT_MS / 1000} s); idle = (RSS with ${MANY_IDLE} − RSS with ${FEW_IDLE} \`cat\` sessions) / ${MANY_IDLE - FEW_IDLE}.`,
          `History: each session runs \`stty -opost; cat fill-COLS.bin; exec cat\` (${HISTORY_ROWS} coloured rows exactly COLS wide); tend's figure is read after every screen is parsed and each session's ${CHECKPOINT_QUIET_MS} ms-quiet checkpoint is on disk.`,
          `Per width, a first group of ${historySessions} such sessions is added unmeasured (it takes the one-time growth of a process that starts parsing: Node's young generation, compiled code; tmux's allocator arenas), then the figure is (RSS after a second group − RSS before it) / ${historySessions}, on both sides.`,
          'Holder: mean Private_Clean + Private_Dirty from /proc/PID/smaps_rollup (includes the touched part of its ring); the programs (`cat`) are not counted on either side.',
          `Server scrollback: the defaults (${DEFAULT_LIVE_SCROLLBACK_ROWS} rows live in xterm, the rest in the compact history, ${DEFAULT_SCROLLBACK_ROWS} in all, so every row is kept); tmux history-limit ${HISTORY_ROWS}. Targets (issue 9): idle ≤ 0.7 MB all told; history ≤ tmux.`,
          ...(unsettled.length ? [`Not settled within the limit: ${unsettled.join('; ')}.`] : []),
        ],
      }],
      data: { rounds, historySessions, tend, tmux },
    };
  },
};
