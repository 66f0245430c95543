// `tend upgrade` with 20 live sessions: how long the command takes, and the
// longest stall a viewer attached all along sees. Two real builds: this tree
// and a copy of it saying another build id (test/support/other-build.ts).
// Round 1 upgrades to the copy (`--from`), every later round is `--rollback`,
// which swaps the two again, so each round moves 20 sessions between builds.
// The viewer is the real `tend attach` (bin/tend, the native viewer) in a PTY
// of its own, on a session printing a line every 10 ms; the stall is the
// longest gap between two of those lines reaching its terminal, from the
// command's start until the first line after it ended.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import { healthOf } from '../../src/cli/upgrade/health-check.js';
import { stopGracefully } from '../../src/cli/upgrade/server-process.js';
import { makeOtherBuild } from '../../test/support/other-build.js';
import { launcherPath, tendEnv } from '../lib/attach-viewer.js';
import { BenchServer, serverMissing, waitUntil } from '../lib/server-instance.js';
import { formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const SESSIONS = 20;
const TICK_MS = 10;
const UPGRADE_TIMEOUT_MS = 180_000;
const WAIT_LIMIT_MS = 60_000;

interface Sample {
  direction: string;
  /** The command, from spawn to exit. */
  commandMs: number;
  /** Its own phases (its --json report). */
  phasesMs: Record<string, number>;
  /** The longest gap between two ticks reaching the attached viewer's terminal. */
  viewerStallMs: number;
  /** From the command saying it stops the old server to the stall's start (negative: before). */
  stallStartAfterStopMs: number;
  /** From the new server's last "sessions recovered" line to the stall's end: the viewer's own way back. */
  stallEndAfterReadyMs: number;
  recovered: number;
  running: number;
}

interface UpgradeJson {
  ok: boolean;
  outcome: string;
  phasesMs: Record<string, number>;
  sessions: { running: number; recovered: number };
  message: string;
}

/** A line the command wrote to stderr (its progress under --json), and when it arrived. */
interface Said {
  at: number;
  line: string;
}

function runCli(ctx: BenchContext, env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number; said: Said[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ctx.root, 'bin', 'tend.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const said: Said[] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    let partial = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      // A line split across chunks counts when its end arrives.
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') said.push({ at: performance.now(), line });
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), UPGRADE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - started, said });
    });
  });
}

/** The longest gap between consecutive arrivals in [from, to] (the last arrival before `from` counts as its start): its start and end. */
function longestGap(arrivals: readonly number[], from: number, to: number): { start: number; end: number } {
  let previous = arrivals.filter((t) => t < from).at(-1) ?? from;
  let gap = { start: previous, end: previous };
  for (const t of arrivals) {
    if (t < from) continue;
    if (t - previous > gap.end - gap.start) gap = { start: previous, end: t };
    previous = t;
    if (t > to) break;
  }
  return gap;
}

/** When the command said a line starting with `prefix` (the last such), or NaN. */
function saidAt(said: readonly Said[], prefix: string): number {
  return said.filter((s) => s.line.startsWith(prefix)).at(-1)?.at ?? Number.NaN;
}

export const upgradeSuite: Suite = {
  name: 'upgrade',
  title: '`tend upgrade` with 20 live sessions: its time, and the longest stall an attached viewer sees',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : Math.max(1, Math.min(ctx.rounds, 5));
    // A directory of this run's own: bench/main.ts runs a failed suite again, and the copy below cannot be made over the last one.
    const dir = mkdtempSync(join(ctx.tmpDir, 'upgrade-'));
    const other = makeOtherBuild({ dir: join(dir, 'other-build'), version: '99.0.0' });
    const server = await BenchServer.start(ctx);
    const env = tendEnv(ctx, server);
    const samples: Sample[] = [];
    const viewerPids: number[] = [];
    let viewer: HolderConnection | null = null;
    try {
      for (let i = 0; i < SESSIONS - 1; i++) await server.createSession(['sh', '-c', `echo session ${i}; exec cat`]);
      const ticker = await server.createSession([process.execPath, '-e',
        `let i = 0; setInterval(() => process.stdout.write('tick ' + ++i + '\\n'), ${TICK_MS});`]);
      // The viewer: `tend attach` in a PTY whose output this process reads, stamping each tick's arrival.
      const spawned = await spawnHolder({
        socketPath: join(server.runtimeDir, 'viewer.sock'),
        cols: 80,
        rows: 24,
        cwd: dir,
        env: Object.fromEntries(Object.entries({ ...env, TERM: 'xterm-256color', LANG: 'C.UTF-8' }).filter((e): e is [string, string] => e[1] !== undefined)),
        argv: [launcherPath(ctx.root), 'attach', ticker.id],
        exitGraceSeconds: 5,
      });
      viewerPids.push(spawned.holderPid, spawned.childPid);
      viewer = await HolderConnection.connect(join(server.runtimeDir, 'viewer.sock'));
      if ((await viewer.acquire()) !== 'acquired') throw new Error('could not take the viewer\'s PTY');
      const arrivals: number[] = [];
      const stamp = (bytes: Uint8Array) => {
        if (Buffer.from(bytes).includes('tick ')) arrivals.push(performance.now());
      };
      viewer.onOutput((f) => stamp(f.bytes));
      viewer.onReplay((f) => stamp(f.bytes));
      await viewer.dumpSince(0);
      await waitUntil('the attached viewer to show ticks', () => arrivals.length > 20, WAIT_LIMIT_MS, 20);

      for (let r = 0; r < rounds; r++) {
        const args = r === 0 ? ['upgrade', '--from', other, '--json'] : ['upgrade', '--rollback', '--json'];
        const from = performance.now();
        const run = await runCli(ctx, env, args);
        const to = performance.now();
        if (run.code !== 0) throw new Error(`tend ${args.join(' ')} failed (${run.code}): ${run.stdout}${run.stderr}`);
        const report = JSON.parse(run.stdout) as UpgradeJson;
        await waitUntil('a tick after the upgrade', () => (arrivals.at(-1) ?? 0) > to, WAIT_LIMIT_MS, 5);
        const gap = longestGap(arrivals, from, to);
        const sample: Sample = {
          direction: r === 0 ? 'this tree → other build (--from)' : '--rollback',
          commandMs: run.ms,
          phasesMs: report.phasesMs,
          viewerStallMs: gap.end - gap.start,
          stallStartAfterStopMs: gap.start - saidAt(run.said, 'stopping the server'),
          stallEndAfterReadyMs: gap.end - saidAt(run.said, 'sessions recovered'),
          recovered: report.sessions.recovered,
          running: report.sessions.running,
        };
        samples.push(sample);
        ctx.log(`  round ${r + 1} (${sample.direction}): ${sample.commandMs.toFixed(0)} ms, viewer stall ${sample.viewerStallMs.toFixed(0)} ms, ` +
          `${sample.recovered}/${sample.running} recovered; the stall began ${sample.stallStartAfterStopMs.toFixed(0)} ms after "stopping the server" ` +
          `and ended ${sample.stallEndAfterReadyMs.toFixed(0)} ms after the new server's last "sessions recovered"; phases ${JSON.stringify(sample.phasesMs)}`);
      }
    } finally {
      viewer?.dispose();
      for (const pid of viewerPids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      // The server now running is the upgrade's, not the one BenchServer started: stopped here.
      // Asked as `tend upgrade` asks it: it is of another build on purpose (no notice of that, whatever its API).
      const upgraded = await healthOf(server.client);
      if (upgraded !== null && !(await stopGracefully(server.client, upgraded.pid))) process.kill(upgraded.pid, 'SIGKILL');
      await server.close();
    }
    const f = (pick: (s: Sample) => number): string => formatSummary(summarize(samples.map(pick)));
    const phase = (name: string) => f((s) => s.phasesMs[name] ?? Number.NaN);
    return {
      tables: [{
        title: `tend upgrade with ${SESSIONS} live sessions (${samples.length} round${samples.length > 1 ? 's' : ''})`,
        columns: ['what', 'figure'],
        rows: [
          ['`tend upgrade` (spawn to exit), ms', f((s) => s.commandMs)],
          ['  installing the new build (copy into versions/), ms', phase('install')],
          ['  the old server stopping (it saves every screen), ms', phase('stop')],
          ['  the new server starting (sessions recovered), ms', phase('start')],
          ['  the health check (API, sessions, a viewer\'s snapshot), ms', phase('check')],
          ['longest stall the attached viewer saw, ms', f((s) => s.viewerStallMs)],
          ['  its start, after the command said it stops the old server, ms', f((s) => s.stallStartAfterStopMs)],
          ['  its end, after the new server\'s last "sessions recovered" line, ms', f((s) => s.stallEndAfterReadyMs)],
          ['sessions running again / running before (worst round)', `${Math.min(...samples.map((s) => s.recovered))} / ${Math.max(...samples.map((s) => s.running))}`],
        ],
        notes: [
          `${SESSIONS - 1} sessions run \`echo; exec cat\`, one prints "tick N" every ${TICK_MS} ms; \`tend attach\` (bin/tend, native viewer) shows that one in a PTY read by the bench.`,
          'Round 1: `tend upgrade --from COPY` (COPY: this tree\'s runnable parts saying another build id); later rounds `tend upgrade --rollback`, which swaps the two builds again (both installed: no copy).',
          'The stall: the longest gap between two arrivals of tick output at the viewer\'s terminal, from the command\'s spawn to the first tick after it exited. The viewer reconnects by itself.',
        ],
      }],
      data: { rounds, samples },
    };
  },
};
