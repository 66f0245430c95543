// Disk and files: a flipped bit and a truncation in each file kind the server
// keeps (the store, a checkpoint, a history file), a full disk and a
// read-only TEND_HOME. Each must end in one clear message, nothing lost that
// the disk still held, and every loss counted where the API reports losses
// (a screen's `scrollback.dropped`, a session's `degraded`).

import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FaultServer, repoRoot, waitFor } from '../lib/fault-server.js';
import { runTend } from '../lib/run-tend.js';
import { waitGone } from '../lib/owned-processes.js';
import { figure, zeroTarget, type Figure, type Part, type RunOptions } from '../lib/part.js';
import { Chooser } from '../lib/random.js';
import { NUMBERED_LINE_BYTES, countNumberedLines } from '../crash/numbered-check.js';
import { damageFile, type Damage } from './damage.js';
import { SmallFs } from './small-fs.js';

/** Lines the session prints: most of them leave the live rows for the history file. */
const LINES = 3000;
const DISK_KNOBS = { TEND_LIVE_ROWS: 100, TEND_CHECKPOINT_QUIET_MS: 200, TEND_CHECKPOINT_MAX_MS: 500 };
const FULL_DISK_BYTES = 4 * 1024 * 1024;
const FILLER_CHUNK_BYTES = 64 * 1024;
const SHORT_DAMAGE: Readonly<Record<'checkpoint' | 'history' | 'store', Damage>> = { checkpoint: 'flipped bit', history: 'flipped bit', store: 'truncated' };

async function startLines(server: FaultServer): Promise<string> {
  const program = join(repoRoot, 'dist', 'faults', 'programs', 'numbered-lines.js');
  const s = await server.createSession(['sh', '-c', `stty -opost -echo && exec "${process.execPath}" "${program}" ${LINES}`], { name: 'lines' });
  await waitFor(`all ${LINES} lines to reach the server`, async () => (await server.api<{ offset: number }>('GET', `/v1/sessions/${s.id}`)).offset === LINES * NUMBERED_LINE_BYTES, 60_000, 50);
  return s.id;
}

/** A clean stop: every session checkpointed, holders left running. */
async function stopServer(server: FaultServer): Promise<void> {
  const pid = server.pid();
  await server.raw('POST', '/v1/server/stop');
  if (pid !== null) await waitGone([pid], 30_000);
}

interface LineAccount {
  shown: number;
  dropped: number;
  degraded: boolean;
  /** Lines neither shown nor counted as dropped: a loss the API hides. */
  uncounted: number;
  doubled: number;
}

async function accountLines(server: FaultServer, id: string): Promise<LineAccount> {
  const screen = await server.api<{ text: string; degraded: boolean; scrollback: { dropped: number } }>('GET', `/v1/sessions/${id}/screen?format=text&scrollback=1000000`);
  const count = countNumberedLines(screen.text);
  const dropped = screen.scrollback.dropped;
  return { shown: count.lines, dropped, degraded: screen.degraded, uncounted: Math.max(0, LINES - count.lines - dropped), doubled: count.doubledLines };
}

/** Log lines that name the damaged file: the message a person would read. */
function logLinesAbout(server: FaultServer, name: string): string[] {
  const log = server.client.paths.serverLog;
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter((l) => l.includes(name));
}

interface CaseResult {
  figures: Figure[];
  findings: string[];
}

async function damageCase(kind: 'store' | 'checkpoint' | 'history', damage: Damage, choose: Chooser): Promise<CaseResult> {
  const server = new FaultServer(DISK_KNOBS);
  const label = `${kind}, ${damage}`;
  const findings: string[] = [];
  try {
    await server.launch();
    const id = await startLines(server);
    await stopServer(server);
    const file = kind === 'store' ? join(server.home, 'tend.db') : join(server.client.paths.checkpointsDir, `${id}${kind === 'checkpoint' ? '.ckpt' : '.hist'}`);
    if (!existsSync(file)) return { figures: [figure(`${label}`, `no ${file.slice(server.home.length + 1)} was written; nothing to damage`)], findings };
    const what = damageFile(file, damage, choose);
    try {
      await server.launch();
    } catch (err) {
      // Refusing a damaged store is fair, if the one message says which file and what to do.
      const message = (err as Error).message;
      findings.push(`${label} (${what}): the server did not start: ${message}`);
      const clear = message.includes(file);
      return { figures: [{ name: `${label}: server refused to start; its message names the file`, value: clear ? 'yes' : 'no', target: 'yes', met: clear }], findings };
    }
    const sessions = await server.sessions();
    if (!sessions.some((s) => s.id === id)) {
      findings.push(`${label} (${what}): the session is gone after the restart although its holder runs`);
      return { figures: [zeroTarget(`${label}: sessions lost`, 1)], findings };
    }
    const account = await accountLines(server, id);
    const messages = logLinesAbout(server, file.slice(file.lastIndexOf('/') + 1));
    findings.push(`${label} (${what}): ${account.shown} of ${LINES} lines shown, ${account.dropped} counted dropped, degraded ${account.degraded}; ` +
      `log: ${messages.length === 0 ? '(nothing names the file)' : JSON.stringify(messages[0]!.slice(0, 300))}`);
    return {
      figures: [
        zeroTarget(`${label}: lines lost and not counted as dropped`, account.uncounted),
        zeroTarget(`${label}: lines doubled`, account.doubled),
        // A loss must show wherever the gap notice shows: the session is marked incomplete.
        ...(account.dropped > 0 ? [{ name: `${label}: the session is marked degraded`, value: account.degraded ? 'yes' : 'no', target: 'yes', met: account.degraded }] : []),
        figure(`${label}: lines shown / counted dropped`, `${account.shown} / ${account.dropped}`),
      ],
      findings,
    };
  } finally {
    await server.close();
  }
}

async function fullDiskCase(): Promise<CaseResult | string> {
  const fs = SmallFs.mount(FULL_DISK_BYTES);
  if (typeof fs === 'string') return fs;
  const server = new FaultServer(DISK_KNOBS, fs.dir);
  const findings: string[] = [];
  try {
    await server.launch();
    const id = await startLines(server);
    const filler = join(fs.dir, 'filler');
    const fd = openSync(filler, 'w');
    try {
      for (;;) writeSync(fd, Buffer.alloc(FILLER_CHUNK_BYTES, 0x66));
    } catch {
      // ENOSPC: the disk is full
    } finally {
      closeSync(fd);
    }
    const refused = await runTend(server.env, ['new', '--', 'true']);
    const saysFull = refused.code !== 0 && /full|no space/i.test(refused.stderr);
    const saysWhere = refused.stderr.includes(fs.dir);
    findings.push(`tend new on a full TEND_HOME: exit ${refused.code}, ${JSON.stringify(refused.stderr.slice(0, 300))}`);
    const account = await accountLines(server, id);
    rmSync(filler);
    const again = await runTend(server.env, ['new', '--', 'true']);
    if (again.code !== 0) findings.push(`tend new once space was freed: exit ${again.code}, ${JSON.stringify(again.stderr.slice(0, 200))}`);
    return {
      figures: [
        { name: 'full disk: tend new says the disk is full', value: saysFull ? 'yes' : 'no', target: 'yes', met: saysFull },
        { name: 'full disk: and names where', value: saysWhere ? 'yes' : 'no', target: 'yes', met: saysWhere },
        zeroTarget('full disk: lines of a running session lost', LINES - account.shown),
        { name: 'full disk: tend new works again once space is freed', value: again.code === 0 ? 'yes' : 'no', target: 'yes', met: again.code === 0 },
      ],
      findings,
    };
  } finally {
    await server.close();
    fs.dispose();
  }
}

async function readOnlyCases(): Promise<CaseResult | string> {
  const findings: string[] = [];
  const figures: Figure[] = [];
  // An empty TEND_HOME on a read-only file system.
  const empty = SmallFs.mount(1024 * 1024, { readOnly: true });
  if (typeof empty === 'string') return empty;
  const bare = new FaultServer({}, empty.dir);
  try {
    const r = await runTend(bare.env, ['new', '--', 'true']);
    const names = /read-only|read only/i.test(r.stderr);
    const pointsAtMissingLog = /\S+\.log\b/.exec(r.stderr);
    const missingLog = pointsAtMissingLog !== null && !existsSync(pointsAtMissingLog[0].replace(/[;,.)]+$/, ''));
    findings.push(`tend new on an empty read-only TEND_HOME: exit ${r.code}, ${JSON.stringify(r.stderr.slice(0, 300))}`);
    figures.push({ name: 'empty read-only TEND_HOME: tend new says it is read-only', value: names ? 'yes' : 'no', target: 'yes', met: names });
    figures.push({ name: 'empty read-only TEND_HOME: message points at a log that does not exist', value: missingLog ? 'yes' : 'no', target: 'no', met: !missingLog });
  } finally {
    await bare.close();
    empty.dispose();
  }
  // A TEND_HOME in use, then read-only: the sessions must still be there to read.
  const used = SmallFs.mount(64 * 1024 * 1024);
  if (typeof used === 'string') return used;
  const server = new FaultServer(DISK_KNOBS, used.dir);
  try {
    await server.launch();
    const id = await startLines(server);
    await stopServer(server);
    used.makeReadOnly();
    const r = await runTend(server.env, ['ls']);
    findings.push(`tend ls on a used TEND_HOME made read-only: exit ${r.code}, ${JSON.stringify(r.stderr.slice(0, 300))}`);
    let account: LineAccount | null = null;
    if (await server.client.isRunning()) account = await accountLines(server, id).catch(() => null);
    figures.push({ name: 'read-only TEND_HOME in use: tend ls works', value: r.code === 0 ? 'yes' : 'no', target: 'yes', met: r.code === 0 });
    figures.push(zeroTarget('read-only TEND_HOME in use: lines lost', account === null ? LINES : LINES - account.shown));
  } finally {
    await server.close();
    used.dispose();
  }
  return { figures, findings };
}

export const diskPart: Part = {
  name: 'disk',
  title: 'Disk and files: damaged store, checkpoint and history; a full disk; a read-only TEND_HOME',
  async run(opts: RunOptions) {
    const choose = new Chooser(opts.seed);
    const figures: Figure[] = [];
    const findings: string[] = [];
    const skipped: string[] = [];
    for (const kind of ['checkpoint', 'history', 'store'] as const) {
      // Short (CI): one damage per file kind, the one each reader is likeliest to get wrong.
      const damages = opts.short ? [SHORT_DAMAGE[kind]] : (['flipped bit', 'truncated'] as const);
      for (const damage of damages) {
        opts.log(`  disk: ${kind}, ${damage}`);
        try {
          const r = await damageCase(kind, damage, choose);
          figures.push(...r.figures);
          findings.push(...r.findings);
        } catch (err) {
          figures.push({ name: `${kind}, ${damage}: check finished`, value: 'no', target: 'yes', met: false });
          findings.push(`${kind}, ${damage}: the check stopped: ${(err as Error).message}`);
        }
      }
    }
    for (const [name, run] of [['full disk', fullDiskCase], ['read-only', readOnlyCases]] as const) {
      opts.log(`  disk: ${name}`);
      const r = await run().catch((err: unknown): CaseResult => ({
        figures: [{ name: `${name}: check finished`, value: 'no', target: 'yes', met: false }],
        findings: [`${name}: the check stopped: ${(err as Error).message}`],
      }));
      if (typeof r === 'string') {
        skipped.push(`${name}: ${r}`);
        opts.log(`  disk: ${name} skipped: ${r}`);
      } else {
        figures.push(...r.figures);
        findings.push(...r.findings);
      }
    }
    return { figures, findings, ...(skipped.length > 0 ? { skipped: skipped.join('; ') } : {}) };
  },
};
