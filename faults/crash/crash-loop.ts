// The crash loop: sessions with varied streams, a numbered-line printer and a
// slow reader, and a server SIGKILLed again and again — at random, the moment
// it writes a checkpoint or a history block, while a real `tend attach`
// connects, in the middle of a paste, and while the next server recovers.
// After every restart every screen is compared with a reference emulator fed
// the same bytes, the numbered lines are counted, and pastes that failed are
// retried with their key; at the end every byte of output and of
// acknowledged input must have arrived exactly once.

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FaultServer, repoRoot, sleep, waitFor } from '../lib/fault-server.js';
import { signalQuietly, waitGone } from '../lib/owned-processes.js';
import { figure, zeroTarget, type Part, type RunOptions } from '../lib/part.js';
import { Chooser } from '../lib/random.js';
import { AttachPty } from './attach-pty.js';
import { killOnFileEvent } from './file-moment.js';
import { NUMBERED_LINE_BYTES, checkNumberedSession } from './numbered-check.js';
import { countPastes, makePaste, sendPaste, type Paste } from './pastes.js';
import { ReferenceScreen } from './reference-screens.js';

export const FULL_KILLS = 1000;
/** Short (CI): one kill of each kind. */
const SHORT_KILLS = 6;
/** Rows each session keeps (and the reference keeps): history past the live rows goes to .hist files. */
const SCROLLBACK_ROWS = 500;
/** Few live rows, so rows reach the history file (and its writes) within a second. */
const LIVE_ROWS = 40;
/** Checkpoints every few hundred ms, so kills land before, during and after them. */
const CHECKPOINT_QUIET_MS = 150;
const CHECKPOINT_MAX_MS = 400;
/** The reader takes a paste slower than it comes: a 1 MiB paste waits ~0.5 s in the holder and the server. */
const READER_BYTES_PER_SECOND = 2 * 1024 * 1024;
const PASTE_MIN_BYTES = 64 * 1024;
const PASTE_MAX_BYTES = 1024 * 1024;
const PASTE_RETRIES = 3;
const FILE_EVENT_WAIT_MS = 4_000;
const ATTACH_REPAINT_WAIT_MS = 30_000;
const DRAIN_QUIET_MS = 2_000;
const WRITERS: ReadonlyArray<{ cols: number; rows: number }> = [
  { cols: 80, rows: 24 },
  { cols: 100, rows: 30 },
  { cols: 57, rows: 17 },
];

type KillKind = 'random' | 'checkpoint' | 'history' | 'attach' | 'paste' | 'recovery';
const KILL_WEIGHTS: Readonly<Record<KillKind, number>> = { random: 35, checkpoint: 15, history: 15, attach: 10, paste: 15, recovery: 10 };

interface Writer {
  id: string;
  file: string;
  cols: number;
  rows: number;
  reference: ReferenceScreen;
}

class CrashLoop {
  readonly server = new FaultServer({
    TEND_SCROLLBACK_ROWS: SCROLLBACK_ROWS,
    TEND_LIVE_ROWS: LIVE_ROWS,
    TEND_CHECKPOINT_QUIET_MS: CHECKPOINT_QUIET_MS,
    TEND_CHECKPOINT_MAX_MS: CHECKPOINT_MAX_MS,
  });
  readonly kills: Record<KillKind, number> = { random: 0, checkpoint: 0, history: 0, attach: 0, paste: 0, recovery: 0 };
  /** Kills of a kind whose moment did not come (no file event): killed at random instead. */
  momentMissed = 0;
  comparisons = 0;
  mismatches = 0;
  knownLimitComparisons = 0;
  screenErrors = 0;
  referenceFull = 0;
  degradedScreens = 0;
  lineChecks = 0;
  readonly lineProblems = new Set<string>();
  lostLines = 0;
  doubledLines = 0;
  attachesReconnected = 0;
  attachesLost = 0;
  readonly pastes: Paste[] = [];
  readonly readyMs: number[] = [];
  readonly findings: string[] = [];
  writers: Writer[] = [];
  numberedId = '';
  readerId = '';
  readonly stopFile: string;
  readonly arrivedFile: string;

  constructor(private readonly opts: RunOptions, private readonly choose: Chooser) {
    this.stopFile = join(this.server.home, 'stop-writers');
    this.arrivedFile = join(this.server.home, 'arrived.bin');
  }

  private program(name: string): string {
    return join(repoRoot, 'dist', 'faults', 'programs', `${name}.js`);
  }

  async setUp(): Promise<void> {
    this.readyMs.push(await this.server.launch());
    const node = process.execPath;
    for (const [i, size] of WRITERS.entries()) {
      const file = join(this.server.home, `stream-${i}.bin`);
      // -opost: the reference is fed the program's bytes as they are, so the terminal must pass them as they are.
      const argv = ['sh', '-c', `stty -opost -echo && exec "${node}" "${this.program('stream-writer')}" "${file}" ${this.opts.seed + i} ${size.cols} ${size.rows} "${this.stopFile}"`];
      const s = await this.server.createSession(argv, { name: `w${i}`, cols: size.cols, rows: size.rows });
      this.writers.push({ id: s.id, file, ...size, reference: new ReferenceScreen(s.id, file, SCROLLBACK_ROWS) });
    }
    this.numberedId = (await this.server.createSession(['sh', '-c', `stty -opost -echo && exec "${node}" "${this.program('numbered-lines')}"`], { name: 'lines' })).id;
    writeFileSync(this.arrivedFile, '');
    this.readerId = (await this.server.createSession([node, this.program('slow-reader'), this.arrivedFile, String(READER_BYTES_PER_SECOND)], { name: 'reader' })).id;
    await waitFor('the slow reader to be ready', async () => {
      const s = await this.server.api<{ text: string }>('GET', `/v1/sessions/${this.readerId}/screen`);
      return s.text.includes('ready');
    });
  }

  /** One kill of the given kind, and the server back up. Returns work to finish once it is (a paste's answer, an attach's repaint). */
  private async killOnce(kind: KillKind): Promise<(() => Promise<void>) | null> {
    const pid = this.server.pid();
    if (pid === null) throw new Error('no server to kill');
    let after: (() => Promise<void>) | null = null;
    switch (kind) {
      case 'random':
        await sleep(this.choose.int(0, 600));
        break;
      case 'checkpoint':
      case 'history': {
        const wanted = kind === 'checkpoint' ? (n: string) => n.includes('.ckpt.tmp-') : (n: string) => n.endsWith('.hist') || n.includes('.hist.tmp-');
        if (!(await killOnFileEvent(this.server.client.paths.checkpointsDir, wanted, pid, FILE_EVENT_WAIT_MS))) this.momentMissed++;
        break;
      }
      case 'attach': {
        const target = this.choose.pick(this.writers);
        const attach = await AttachPty.start(this.server, target.id, target.cols, target.rows);
        await sleep(this.choose.int(0, 400));
        const paints = attach.paints;
        after = async () => {
          try {
            await attach.waitPaintedAfter(paints, ATTACH_REPAINT_WAIT_MS);
            this.attachesReconnected++;
          } catch (err) {
            this.attachesLost++;
            this.note(`attach to ${target.id} did not come back: ${(err as Error).message}`);
          } finally {
            await attach.end();
          }
        };
        break;
      }
      case 'paste': {
        const paste = makePaste(this.pastes.length + 1, this.choose.int(PASTE_MIN_BYTES, PASTE_MAX_BYTES), this.pastes.length % 2 === 0 ? 'api' : 'cli');
        this.pastes.push(paste);
        const answered = sendPaste(this.server, this.readerId, paste);
        await sleep(this.choose.int(10, 600));
        after = async () => {
          await answered;
          await this.retryPaste(paste);
        };
        break;
      }
      case 'recovery':
        break;
    }
    signalQuietly(pid, 'SIGKILL');
    await waitGone([pid]);
    this.kills[kind]++;
    if (kind === 'recovery') await this.killDuringRecovery();
    this.readyMs.push(await this.server.launch());
    return after;
  }

  /** Starts a server and kills it before it reports ready (at a random point of its start and recovery). */
  private async killDuringRecovery(): Promise<void> {
    const typical = this.readyMs.slice(-5).reduce((a, b) => a + b, 0) / Math.min(5, this.readyMs.length);
    const { pid, ready } = this.server.spawnServer();
    await Promise.race([sleep(this.choose.int(0, Math.max(50, Math.floor(typical)))), ready]);
    signalQuietly(pid, 'SIGKILL');
    await waitGone([pid]);
  }

  private async retryPaste(paste: Paste): Promise<void> {
    // The same key again: the holder drops what it already has of this paste.
    while (!paste.acknowledged && paste.tries <= PASTE_RETRIES) await sendPaste(this.server, this.readerId, paste);
  }

  /** The server log's last error line, for a finding (the home is removed at the end). */
  private serverLogError(): string {
    try {
      const lines = readFileSync(this.server.client.paths.serverLog, 'utf8').split('\n').filter((l) => / error /.test(l));
      const last = lines[lines.length - 1];
      return last ? `; server log: ${last.slice(0, 300)}` : '';
    } catch {
      return '';
    }
  }

  private note(line: string): void {
    if (this.findings.length < 40) this.findings.push(line);
    this.opts.log(`  crash: ${line}`);
  }

  /** Every screen against its reference, and the numbered lines. */
  private async check(kill: number): Promise<void> {
    for (const w of this.writers) {
      let comparison;
      try {
        comparison = await w.reference.compare(this.server);
      } catch (err) {
        // A screen the server could not give is a failure to count, not the end of the loop.
        this.screenErrors++;
        this.note(`after kill ${kill}: the screen of ${w.id} could not be compared: ${(err as Error).message}${this.serverLogError()}`);
        continue;
      }
      const { compared, diffs, knownLimits, offset, degraded } = comparison;
      if (!compared) {
        this.referenceFull++;
        continue;
      }
      this.comparisons++;
      if (knownLimits.length > 0) this.knownLimitComparisons++;
      if (degraded) this.degradedScreens++;
      if (diffs.length > 0) {
        this.mismatches++;
        this.note(`after kill ${kill}: session ${w.id} (${w.cols}x${w.rows}) differs from the reference at offset ${offset}: ${diffs.slice(0, 3).join(' | ')}`);
      }
    }
    const lines = await checkNumberedSession(this.server, this.numberedId, SCROLLBACK_ROWS);
    this.lineChecks++;
    if (lines.firstProblem && !this.lineProblems.has(lines.firstProblem)) {
      this.lineProblems.add(lines.firstProblem);
      this.lostLines += lines.lostLines;
      this.doubledLines += lines.doubledLines;
      this.note(`after kill ${kill}: numbered output: ${lines.firstProblem}`);
    }
  }

  async run(kills: number): Promise<void> {
    const started = Date.now();
    // Kill 0: the screens before any kill, so a difference the live path makes is told apart from one recovery makes.
    await this.check(0);
    for (let k = 1; k <= kills; k++) {
      // Every kind once first, so that even a short run meets each moment.
      const kinds = Object.keys(KILL_WEIGHTS) as KillKind[];
      const kind = k <= kinds.length ? kinds[k - 1]! : this.choose.weighted(KILL_WEIGHTS);
      const t0 = Date.now();
      const after = await this.killOnce(kind);
      const t1 = Date.now();
      await after?.();
      const t2 = Date.now();
      await this.check(k);
      if (process.env.TEND_FAULTS_TRACE) this.opts.log(`  crash: kill ${k} ${kind}: kill+restart ${t1 - t0} ms, after ${t2 - t1} ms, check ${Date.now() - t2} ms`);
      if (k % 50 === 0) this.opts.log(`  crash: ${k}/${kills} kills, ${this.comparisons} comparisons, ${this.mismatches} mismatches (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  }

  /** Stops the writers and waits for the reader to drain; then counts every byte. */
  async finish(): Promise<{ outputLost: number; outputDoubled: number }> {
    writeFileSync(this.stopFile, '');
    let outputLost = 0;
    let outputDoubled = 0;
    for (const w of this.writers) {
      const s = await waitFor(`writer ${w.id} to stop`, async () => {
        const info = await this.server.api<{ status: string; offset: number; unparsedBytes: number }>('GET', `/v1/sessions/${w.id}`);
        return info.status === 'exited' && info.unparsedBytes === 0 ? info : null;
      }, 60_000, 50);
      const size = statSync(w.file).size;
      outputLost += Math.max(0, size - s.offset);
      outputDoubled += Math.max(0, s.offset - size);
      if (s.offset !== size) this.note(`session ${w.id}: the program wrote ${size} bytes, the server's screen covers ${s.offset}`);
    }
    await this.check(-1);
    outputLost += this.lostLines * NUMBERED_LINE_BYTES;
    outputDoubled += this.doubledLines * NUMBERED_LINE_BYTES;
    // The reader is done when what it wrote down stops growing.
    let last = -1;
    await waitFor('the slow reader to take every paste', async () => {
      const size = existsSync(this.arrivedFile) ? statSync(this.arrivedFile).size : 0;
      const quiet = size === last;
      last = size;
      return quiet;
    }, 300_000, DRAIN_QUIET_MS);
    return { outputLost, outputDoubled };
  }

  dispose(): void {
    for (const w of this.writers) w.reference.dispose();
  }
}

export const crashPart: Part = {
  name: 'crash',
  title: 'Crash loop: server SIGKILLs, screens against a reference, output and input exactly once',
  async run(opts) {
    const kills = opts.kills ?? (opts.short ? SHORT_KILLS : FULL_KILLS);
    const loop = new CrashLoop(opts, new Chooser(opts.seed));
    try {
      await loop.setUp();
      await loop.run(kills);
      const { outputLost, outputDoubled } = await loop.finish();
      const pastes = countPastes(loop.arrivedFile, loop.pastes);
      for (const f of pastes.failures.slice(0, 10)) loop.findings.push(`input: ${f}`);
      const totalKills = Object.values(loop.kills).reduce((a, b) => a + b, 0);
      const readySorted = [...loop.readyMs].sort((a, b) => a - b);
      return {
        figures: [
          figure('server SIGKILLs', `${totalKills} (${Object.entries(loop.kills).map(([k, n]) => `${k} ${n}`).join(', ')})`),
          figure('file-timed kills whose moment did not come (killed at random instead)', loop.momentMissed),
          figure('screen comparisons (scrollback included)', loop.comparisons),
          zeroTarget('mismatches', loop.mismatches),
          zeroTarget('screens the server failed to give (an error answer)', loop.screenErrors),
          zeroTarget('comparisons not made: the reference had filled its scrollback', loop.referenceFull),
          figure('comparisons that differed only in the known limits of src/server/screen/screen.ts (the top row of a cut scrollback, a styled blank in the last column, a pen no snapshot can order)', loop.knownLimitComparisons),
          zeroTarget('screens marked degraded', loop.degradedScreens),
          figure('numbered-line checks', loop.lineChecks),
          zeroTarget('output bytes lost', outputLost),
          zeroTarget('output bytes doubled', outputDoubled),
          figure('attaches killed mid-connect that painted again', loop.attachesReconnected),
          zeroTarget('attaches that did not come back', loop.attachesLost),
          figure('pastes (API and tend send --stdin, 64 KiB–1 MiB)', `${pastes.pastes}, ${pastes.acknowledged} acknowledged, ${pastes.failedAtLeastOnce} failed at least once, ${pastes.neverAcknowledged} never acknowledged`),
          zeroTarget('acknowledged input bytes lost', pastes.lostBytes),
          zeroTarget('input bytes doubled', pastes.doubledBytes),
          zeroTarget('input bytes garbled', pastes.garbledBytes),
          figure('input bytes of unacknowledged pastes that arrived (reported by their failures)', `${pastes.unacknowledgedArrivedBytes} (${pastes.reportedArrivedBytes})`),
          figure('server start to ready, median / max', `${Math.round(readySorted[Math.floor(readySorted.length / 2)] ?? 0)} / ${Math.round(readySorted[readySorted.length - 1] ?? 0)} ms`),
        ],
        findings: loop.findings,
      };
    } finally {
      loop.dispose();
      await loop.server.close();
    }
  },
};
