// A server that holds 1 000 sessions (issue: "A server that holds 1 000
// sessions"), on one private tend server at a time:
//
// 1. Scale with output: 100 sessions open, 20 of them producing output
//    (`while :; do cat text-sgr.bin; done`, unmetered), then 500 open with 20
//    producing; the server's own event-loop delay over a window
//    (GET /v1/health), the parse rate of each producing session around the
//    same window (parsedMarks) and the server's CPU time.
// 2. 1 000 idle `cat` sessions: how long creating them takes, the server's
//    RSS (settled) at 100 and 1 000, the holders' private memory, the
//    server's idle loop delay and CPU, and `GET /v1/sessions` with all of
//    them listed; against a private tmux server with as many idle `cat`
//    sessions in the same round.
//
// --quick: 30 open with 20 producing, and 60 idle (10 for the lower RSS
// reading), short windows: CI's smoke run, which must stay under a minute. Every holder and program is ended by PID (BenchServer.close),
// the tmux server by its PID.

import { mkdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive, runText } from '../lib/child-process.js';
import { readProcessMemory } from '../lib/proc-memory.js';
import { BenchServer, serverMissing, waitUntil, type BenchSession } from '../lib/server-instance.js';
import { settledRssKb } from '../lib/server-settle.js';
import { formatSummary, median, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { TmuxServer } from '../lib/tmux.js';

const PRODUCING = 20;
const OPEN_STEPS = [100, 500] as const;
const QUICK_OPEN_STEPS = [30] as const;
const IDLE = { few: 100, many: 1000 } as const;
const QUICK_IDLE = { few: 10, many: 60 } as const;
/** producers run this long before the window starts, so the server is in its steady state */
const WARMUP_MS = 500;
const WINDOW_MS = 3000;
const QUICK_WINDOW_MS = 1000;
/** the idle server's loop delay and CPU are read over this long */
const IDLE_WINDOW_MS = 2000;
const QUICK_IDLE_WINDOW_MS = 500;
/** POST /v1/sessions requests in flight at once while the idle sessions are created */
const CREATE_CONCURRENCY = 4;
const SETTLE_LIMIT_MS = 5000;
/** `GET /v1/sessions` round trips timed with every idle session open */
const LIST_CALLS = 5;
const TMUX_SESSIONS_PER_CALL = 25;
/** a tmux server takes seconds to close 1 000 panes after SIGTERM; the next measurement waits */
const TMUX_EXIT_WAIT_MS = 30_000;
/** file descriptors and PTYs kept free beyond one per session */
const SPARE = 200;

interface HealthBody {
  eventLoop: { p50Ms: number; p99Ms: number; maxMs: number; windowMs: number };
  memory: { rssBytes: number };
}

interface OutputSample {
  open: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  windowMs: number;
  /** mean parse rate of one producing session over the window, MB/s */
  perSessionMBps: number;
  /** every producing session together, MB/s */
  totalMBps: number;
  /** server CPU time over the window, % of one core */
  serverCpuPct: number;
  /** the event loop's own thread (the main thread) over the same window, % of one core */
  loopCpuPct: number;
  serverRssMb: number;
  /** ms to create the idle sessions added for this step */
  createMs: number;
  /** mean time between a producing session's two parse marks, ms */
  parseWindowMs: number;
  /** the whole step: creating, warm-up, marks, window (and deleting the producers when another step follows) */
  stepMs: number;
}

interface TendIdleSample {
  createFewMs: number;
  createRestMs: number;
  rssFewKb: number;
  rssManyKb: number;
  holdersPrivateKb: number;
  idleLoopP50Ms: number;
  idleLoopP99Ms: number;
  idleLoopMaxMs: number;
  idleCpuPct: number;
  listMs: number;
  listBytes: number;
  unsettled: string[];
}

interface TmuxIdleSample {
  createFewMs: number;
  createRestMs: number;
  rssFewKb: number;
  rssManyKb: number;
  idleCpuPct: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The soft limit a child of ours inherits (Node raises its own to the hard limit at start). */
function openFilesLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return !m || m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function freePtys(): number {
  try {
    const max = Number(readFileSync('/proc/sys/kernel/pty/max', 'utf8'));
    const used = Number(readFileSync('/proc/sys/kernel/pty/nr', 'utf8'));
    return max - used;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

let clockTicks: number | undefined;

async function ticksPerSecond(ctx: BenchContext): Promise<number> {
  if (clockTicks === undefined) {
    const n = Number((await runText('getconf', ['CLK_TCK'], { env: ctx.env }).catch(() => '')).trim());
    clockTicks = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return clockTicks;
}

/** Gone, or a zombie waiting for its parent (init, for a tmux server) to reap it. */
function exited(pid: number): boolean {
  if (!isAlive(pid)) return true;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** utime + stime in clock ticks (fields 14 and 15) of a process's or one thread's stat file. */
function cpuTicks(statPath: string): number {
  const text = readFileSync(statPath, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU of each stat file's process or thread while `during` runs, % of one core. */
async function cpuPercents(ctx: BenchContext, statPaths: string[], during: () => Promise<void>): Promise<number[]> {
  const hz = await ticksPerSecond(ctx);
  const c0 = statPaths.map(cpuTicks);
  const t0 = performance.now();
  await during();
  const seconds = (performance.now() - t0) / 1000;
  return statPaths.map((path, i) => ((cpuTicks(path) - c0[i]!) / hz) / seconds * 100);
}

/** CPU of PID while `during` runs, % of one core. */
async function cpuPercent(ctx: BenchContext, pid: number, during: () => Promise<void>): Promise<number> {
  return (await cpuPercents(ctx, [`/proc/${pid}/stat`], during))[0]!;
}

/** `count` sessions, the i-th running argv(i), CREATE_CONCURRENCY requests at a time; and the ms taken. */
async function createMany(server: BenchServer, count: number, argv: (i: number) => string[]): Promise<{ sessions: BenchSession[]; ms: number }> {
  const t0 = performance.now();
  const sessions: BenchSession[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      sessions[i] = await server.createSession(argv(i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, count) }, worker));
  return { sessions, ms: performance.now() - t0 };
}

const idleArgv = (): string[] => ['cat'];

interface ParsedMark {
  /** the session's output parsed by `at`, bytes */
  bytes: number;
  at: number;
}

/**
 * How far each screen has parsed, and when: a session's `offset` counts bytes
 * handed to its screen (up to 2 MiB may wait for the parser before the
 * server pauses the holder); `offset − unparsedBytes` is what it has parsed.
 */
async function parsedMarks(server: BenchServer, ids: readonly string[]): Promise<Map<string, ParsedMark>> {
  const at = performance.now();
  const list = await server.api<Array<{ id: string; offset: number; unparsedBytes: number }>>('GET', '/v1/sessions');
  const parsed = new Map(list.map((s) => [s.id, s.offset - s.unparsedBytes]));
  return new Map(ids.map((id): [string, ParsedMark] => {
    const bytes = parsed.get(id);
    if (bytes === undefined) throw new Error(`session ${id} is not listed`);
    return [id, { bytes, at }];
  }));
}

/** Mean parse rate of one session between two marks, MB/s, and the mean time between them, ms. */
function meanParse(from: Map<string, ParsedMark>, to: Map<string, ParsedMark>): { mbps: number; ms: number } {
  const spans = [...from].map(([id, a]) => {
    const b = to.get(id)!;
    return { bytes: b.bytes - a.bytes, ms: b.at - a.at };
  });
  const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
  return { mbps: mean(spans.map((x) => x.bytes / 1e6 / (x.ms / 1000))), ms: mean(spans.map((x) => x.ms)) };
}

/** Waits for a line on its FIFO, then writes FILE again and again. */
function producerArgv(fifo: string, file: string): string[] {
  return ['sh', '-c', 'read go < "$0"; while :; do cat "$1"; done', fifo, file];
}

async function measureOutput(ctx: BenchContext, round: number, steps: readonly number[], windowMs: number, file: string): Promise<OutputSample[]> {
  const dir = join(ctx.tmpDir, 'server-scale');
  mkdirSync(dir, { recursive: true });
  const server = await BenchServer.start(ctx);
  try {
    let idle = 0;
    const out: OutputSample[] = [];
    for (const [step, open] of steps.entries()) {
      const stepStarted = performance.now();
      const createMs = (await createMany(server, open - PRODUCING - idle, idleArgv)).ms;
      idle = open - PRODUCING;
      // created quiet, then released together: no session is created beside the floods
      const fifos = Array.from({ length: PRODUCING }, (_, i) => join(dir, `go-${round}-${step}-${i}.fifo`));
      await runText('mkfifo', ['-m', '0600', ...fifos], { env: ctx.env });
      const producers = await createMany(server, PRODUCING, (i) => producerArgv(fifos[i]!, file));
      const ids = producers.sessions.map((s) => s.id);
      await Promise.all(fifos.map((f) => writeFile(f, '\n')));
      await sleep(WARMUP_MS);
      // The loop window starts now and lasts windowMs; the parse marks are taken at its ends.
      let health: HealthBody | undefined;
      let start = new Map<string, ParsedMark>();
      // The main thread's id is the process's: its own stat file is the event loop's CPU.
      const [serverCpuPct, loopCpuPct] = await cpuPercents(ctx, [`/proc/${server.pid}/stat`, `/proc/${server.pid}/task/${server.pid}/stat`], async () => {
        await server.api('GET', '/v1/health?reset-event-loop=1');
        const windowEnd = performance.now() + windowMs;
        start = await parsedMarks(server, ids);
        await sleep(windowEnd - performance.now());
        health = await server.api<HealthBody>('GET', '/v1/health');
      });
      const end = await parsedMarks(server, ids);
      const parsed = meanParse(start, end);
      // the next step starts without them; after the last, the server's close ends them
      if (step < steps.length - 1) await Promise.all(ids.map((id) => server.deleteSession(id)));
      out.push({
        open, loopP50Ms: health!.eventLoop.p50Ms, loopP99Ms: health!.eventLoop.p99Ms, loopMaxMs: health!.eventLoop.maxMs,
        windowMs: health!.eventLoop.windowMs, perSessionMBps: parsed.mbps, totalMBps: parsed.mbps * PRODUCING, serverCpuPct: serverCpuPct!, loopCpuPct: loopCpuPct!,
        serverRssMb: health!.memory.rssBytes / 1e6, createMs, parseWindowMs: parsed.ms, stepMs: performance.now() - stepStarted,
      });
    }
    return out;
  } finally {
    await server.close();
  }
}

async function idleLoop(ctx: BenchContext, server: BenchServer, windowMs: number): Promise<{ health: HealthBody; cpuPct: number }> {
  // The CPU first, with no loop-delay window open: the monitor's 2 ms timer is
  // work an idle server does only while someone watches its loop.
  const cpuPct = await cpuPercent(ctx, server.pid, () => sleep(windowMs));
  await server.api('GET', '/v1/health?reset-event-loop=1');
  await sleep(windowMs);
  const health = await server.api<HealthBody>('GET', '/v1/health');
  return { health, cpuPct };
}

async function measureTendIdle(ctx: BenchContext, counts: { few: number; many: number }, idleWindowMs: number): Promise<TendIdleSample> {
  const server = await BenchServer.start(ctx);
  try {
    const unsettled: string[] = [];
    const settle = async (what: string): Promise<number> => {
      const r = await settledRssKb(server.pid, SETTLE_LIMIT_MS);
      if (!r.settled) unsettled.push(what);
      return r.rssKb;
    };
    const few = await createMany(server, counts.few, idleArgv);
    const createFewMs = few.ms;
    const rssFewKb = await settle(`${counts.few} idle`);
    const rest = await createMany(server, counts.many - counts.few, idleArgv);
    const createRestMs = rest.ms;
    const rssManyKb = await settle(`${counts.many} idle`);
    let holdersPrivateKb = 0;
    for (const s of [...few.sessions, ...rest.sessions]) {
      if (s.holderPid === null) throw new Error(`session ${s.id} has no holder PID`);
      holdersPrivateKb += readProcessMemory(s.holderPid).privateKb;
    }
    const { health, cpuPct } = await idleLoop(ctx, server, idleWindowMs);
    const listMs: number[] = [];
    let listBytes = 0;
    for (let i = 0; i < LIST_CALLS; i++) {
      const t0 = performance.now();
      const list = await server.listSessions();
      listMs.push(performance.now() - t0);
      listBytes = JSON.stringify(list).length;
      if (list.length !== counts.many) throw new Error(`GET /v1/sessions listed ${list.length} sessions, not ${counts.many}`);
    }
    return {
      createFewMs, createRestMs, rssFewKb, rssManyKb, holdersPrivateKb,
      idleLoopP50Ms: health.eventLoop.p50Ms, idleLoopP99Ms: health.eventLoop.p99Ms, idleLoopMaxMs: health.eventLoop.maxMs,
      idleCpuPct: cpuPct, listMs: median(listMs), listBytes, unsettled,
    };
  } finally {
    await server.close();
  }
}

async function addTmuxSessions(tmux: TmuxServer, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += TMUX_SESSIONS_PER_CALL) {
    const args: string[] = [];
    for (let j = i; j < Math.min(to, i + TMUX_SESSIONS_PER_CALL); j++) {
      if (args.length) args.push(';');
      args.push('new-session', '-d', '-s', `idle${j}`, 'cat');
    }
    await tmux.run(args);
  }
}

async function measureTmuxIdle(ctx: BenchContext, counts: { few: number; many: number }, idleWindowMs: number): Promise<TmuxIdleSample> {
  const tmux = ctx.owned.add(await TmuxServer.start(ctx.env));
  try {
    // the server starts with one session ("keep")
    let t0 = performance.now();
    await addTmuxSessions(tmux, 1, counts.few);
    const createFewMs = performance.now() - t0;
    const rssFewKb = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
    t0 = performance.now();
    await addTmuxSessions(tmux, counts.few, counts.many);
    const createRestMs = performance.now() - t0;
    const rssManyKb = (await settledRssKb(tmux.pid, SETTLE_LIMIT_MS)).rssKb;
    const idleCpuPct = await cpuPercent(ctx, tmux.pid, () => sleep(idleWindowMs));
    return { createFewMs, createRestMs, rssFewKb, rssManyKb, idleCpuPct };
  } finally {
    tmux.dispose();
    await waitUntil(`tmux server ${tmux.pid} to exit`, () => exited(tmux.pid), TMUX_EXIT_WAIT_MS, 50);
  }
}

export const serverScaleSuite: Suite = {
  name: 'server-scale',
  title: 'A server that holds 1 000 sessions: loop delay with output, memory and creation of idle sessions vs tmux',
  async run(ctx): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : Math.min(ctx.rounds, 3);
    const steps = ctx.quick ? QUICK_OPEN_STEPS : OPEN_STEPS;
    const counts = ctx.quick ? QUICK_IDLE : IDLE;
    const windowMs = ctx.quick ? QUICK_WINDOW_MS : WINDOW_MS;
    const idleWindowMs = ctx.quick ? QUICK_IDLE_WINDOW_MS : IDLE_WINDOW_MS;
    const most = Math.max(counts.many, ...steps);
    // the server holds a socket per holder, tmux a PTY master per pane; one side runs at a time
    if (openFilesLimit() < most + SPARE) return skipped(`${most} sessions need more open files than the limit of ${openFilesLimit()} (ulimit -n)`);
    if (freePtys() < most + SPARE) return skipped(`${most} sessions need more free PTYs than the ${freePtys()} the kernel has left (kernel.pty.max)`);
    const text = ctx.streams.find((s) => s.name.startsWith('text')) ?? ctx.streams[0]!;

    const output: OutputSample[][] = [];
    const tend: TendIdleSample[] = [];
    const tmux: TmuxIdleSample[] = [];
    const took = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
    for (let r = 0; r < rounds; r++) {
      const o = await measureOutput(ctx, r, steps, windowMs, text.path);
      output.push(o);
      for (const x of o) {
        ctx.log(`  round ${r + 1} tend, ${x.open} open, ${PRODUCING} producing: loop delay p50 ${x.loopP50Ms.toFixed(1)} ms, p99 ${x.loopP99Ms.toFixed(1)} ms, ` +
          `max ${x.loopMaxMs.toFixed(1)} ms; ${x.perSessionMBps.toFixed(2)} MB/s per producing session; server CPU ${x.serverCpuPct.toFixed(0)} % (loop thread ${x.loopCpuPct.toFixed(0)} %) (${(x.stepMs / 1000).toFixed(1)} s)`);
      }
      let t0 = performance.now();
      const t = await measureTendIdle(ctx, counts, idleWindowMs);
      tend.push(t);
      ctx.log(`  round ${r + 1} tend, ${counts.many} idle: created in ${((t.createFewMs + t.createRestMs) / 1000).toFixed(1)} s; ` +
        `server RSS ${(t.rssManyKb / 1024).toFixed(0)} MB (${((t.rssManyKb - t.rssFewKb) / (counts.many - counts.few)).toFixed(0)} kB per session), ` +
        `holders ${(t.holdersPrivateKb / 1024).toFixed(0)} MB; idle loop p99 ${t.idleLoopP99Ms.toFixed(1)} ms, CPU ${t.idleCpuPct.toFixed(1)} %; ` +
        `GET /v1/sessions ${t.listMs.toFixed(0)} ms` + (t.unsettled.length ? ` (not settled: ${t.unsettled.join('; ')})` : '') + ` (${took(t0)})`);
      t0 = performance.now();
      const m = await measureTmuxIdle(ctx, counts, idleWindowMs);
      tmux.push(m);
      ctx.log(`  round ${r + 1} tmux, ${counts.many} idle: created in ${((m.createFewMs + m.createRestMs) / 1000).toFixed(1)} s; ` +
        `server RSS ${(m.rssManyKb / 1024).toFixed(0)} MB (${((m.rssManyKb - m.rssFewKb) / (counts.many - counts.few)).toFixed(0)} kB per session); CPU ${m.idleCpuPct.toFixed(1)} % (${took(t0)})`);
    }

    const f = (xs: number[]): string => formatSummary(summarize(xs));
    const outputRows = steps.map((open, i) => {
      const xs = output.map((o) => o[i]!);
      const pick = (p: (x: OutputSample) => number): string => f(xs.map(p));
      return [`${open} open, ${PRODUCING} producing`, pick((x) => x.loopP50Ms), pick((x) => x.loopP99Ms), pick((x) => x.loopMaxMs),
        pick((x) => x.perSessionMBps), pick((x) => x.totalMBps), pick((x) => x.serverCpuPct), pick((x) => x.loopCpuPct), pick((x) => x.serverRssMb)];
    });

    const rest = counts.many - counts.few;
    const tendAll = tend.map((t) => t.rssManyKb + t.holdersPrivateKb);
    const tendMarginal = tend.map((t) => (t.rssManyKb - t.rssFewKb) / rest);
    const tendPerSession = tend.map((t, i) => tendMarginal[i]! + t.holdersPrivateKb / counts.many);
    const tmuxMarginal = tmux.map((m) => (m.rssManyKb - m.rssFewKb) / rest);
    const tendCreate = tend.map((t) => (t.createFewMs + t.createRestMs) / 1000);
    const tmuxCreate = tmux.map((m) => (m.createFewMs + m.createRestMs) / 1000);
    const mb = (kb: number): number => kb / 1024;
    const row = (what: string, a: number[], b: number[] | null): string[] =>
      [what, f(a), b ? f(b) : '—', b ? f(roundRatios(a, b)) : '—'];
    const idleRows: string[][] = [
      row(`server RSS with ${counts.many} idle, MB`, tend.map((t) => mb(t.rssManyKb)), tmux.map((m) => mb(m.rssManyKb))),
      row(`server RSS with ${counts.few} idle, MB`, tend.map((t) => mb(t.rssFewKb)), tmux.map((m) => mb(m.rssFewKb))),
      row(`holders' private memory, all ${counts.many}, MB`, tend.map((t) => mb(t.holdersPrivateKb)), null),
      row(`in all with ${counts.many} idle (server RSS + holders), MB`, tendAll.map(mb), tmux.map((m) => mb(m.rssManyKb))),
      row(`marginal server RSS per session (${counts.few} → ${counts.many}), kB`, tendMarginal, tmuxMarginal),
      row('holder private memory per session (mean), kB', tend.map((t) => t.holdersPrivateKb / counts.many), null),
      row('per session in all (marginal server + holder), kB', tendPerSession, tmuxMarginal),
      row(`creating ${counts.many} sessions, s`, tendCreate, tmuxCreate),
      row(`ms per session, the first ${counts.few}`, tend.map((t) => t.createFewMs / counts.few), tmux.map((m) => m.createFewMs / (counts.few - 1))),
      row(`ms per session, the next ${rest}`, tend.map((t) => t.createRestMs / rest), tmux.map((m) => m.createRestMs / rest)),
      row(`server CPU while idle with ${counts.many}, % of a core`, tend.map((t) => t.idleCpuPct), tmux.map((m) => m.idleCpuPct)),
      [`loop delay p50 / p99 (max) while idle with ${counts.many}, ms`,
        `${f(tend.map((t) => t.idleLoopP50Ms))} / ${f(tend.map((t) => t.idleLoopP99Ms))} (${f(tend.map((t) => t.idleLoopMaxMs))})`, '—', '—'],
      row(`GET /v1/sessions with ${counts.many} listed, ms (median of ${LIST_CALLS})`, tend.map((t) => t.listMs), null),
    ];
    const unsettled = tend.flatMap((t) => t.unsettled);
    const roundsText = `${rounds} round${rounds > 1 ? 's' : ''}`;
    const lastStep = steps[steps.length - 1]!;

    return {
      tables: [
        {
          title: `tend server with ${PRODUCING} sessions producing output: event-loop delay (ms) and parse rate (${roundsText}, ${windowMs / 1000} s windows)`,
          columns: ['sessions', 'loop delay p50', 'loop delay p99', 'loop delay max', 'parsed per producing session, MB/s', 'parsed in all, MB/s', 'server CPU, % of a core', 'its loop thread, % of a core', 'server RSS, MB'],
          rows: outputRows,
          notes: [
            `One private server; the open sessions are \`cat\` (idle) plus ${PRODUCING} running \`sh -c 'read go < FIFO; while :; do cat ${text.name}.bin; done'\` (${(text.bytes / 1e6).toFixed(1)} MB of coloured log text, unmetered: each writes as fast as its holder and the server take it, so the parse rate is the server's capacity shared out, and the loop delay is under the heaviest load). The producers are created quiet (${CREATE_CONCURRENCY} requests in flight, like the idle ones) and released together through their FIFOs.`,
            `The producers start ${WARMUP_MS} ms before the loop window, which starts with \`GET /v1/health?reset-event-loop=1\` and ends, at least ${windowMs / 1000} s later, with \`GET /v1/health\`, whose eventLoop figures (monitorEventLoopDelay: how late its 2 ms timer fired) are the loop delay. For the next step the producers are deleted, idle sessions added, and ${PRODUCING} fresh producers started.`,
            `Parsed: bytes each producing session's screen parsed between a mark as the loop window opens and one as it closes (a mark: \`offset − unparsedBytes\` of each session from \`GET /v1/sessions\`), over the time between them. Per producing session: the mean; in all: ${PRODUCING} × the mean.`,
            'Server CPU: utime + stime from /proc/PID/stat over the loop window; its loop thread: the same from /proc/PID/task/PID/stat (the main thread, which runs the event loop; the screen host and V8\'s helpers are the rest); RSS from the health reply at its end.',
            `Target: loop delay p99 < 20 ms with ${lastStep} open and ${PRODUCING} producing. tmux has no loop-delay or parsed-offset figure; its responsiveness beside floods is server-loop's echo.`,
          ],
        },
        {
          title: `${counts.many} idle \`cat\` sessions on one server: tend vs tmux (${roundsText})`,
          columns: ['figure', 'tend', 'tmux', 'tend / tmux (same round)'],
          rows: idleRows,
          notes: [
            `tend: a fresh private server; \`POST /v1/sessions\` with argv \`cat\`, ${CREATE_CONCURRENCY} requests in flight (each answers once the holder is spawned, connected and leased). tmux: a fresh private server, \`new-session -d cat\` ${TMUX_SESSIONS_PER_CALL} to a client call (its first session is the server's own).`,
            `Server RSS from /proc/PID/status, read once it has settled (two readings 250 ms apart within 1 %, at most ${SETTLE_LIMIT_MS / 1000} s); marginal = (RSS with ${counts.many} − RSS with ${counts.few}) / ${rest}.`,
            'Holders: Private_Clean + Private_Dirty from /proc/PID/smaps_rollup of every holder (RSS would count the shared libc pages once per holder). The programs (`cat`) are counted on neither side.',
            `Idle: the server's CPU (utime + stime) over ${idleWindowMs / 1000} s with every session open and none writing, then tend's loop delay over the next ${idleWindowMs / 1000} s (a \`GET /v1/health\` window, whose 2 ms timer runs only while one is open).`,
            'Targets (issue 9): idle ≤ 0.7 MB per session all told (server-memory measures the same at 10 → 60 sessions).',
            ...(unsettled.length ? [`Not settled within the limit: ${unsettled.join('; ')}.`] : []),
          ],
        },
      ],
      data: { rounds, producing: PRODUCING, steps, counts, windowMs, createConcurrency: CREATE_CONCURRENCY, output, tend, tmux },
    };
  },
};
