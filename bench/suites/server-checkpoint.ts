// What a checkpoint of a 10 000-row session costs, at 80 and 200 columns.
// In process: the server's own ScreenHost (the screen in its worker thread)
// and CheckpointWriter on the session's checkpoint path (session.ts): the
// live rows, command index and history cut in the host, the history's new
// blocks appended to its file, the checkpoint written — timing each step
// with the longest block of this event loop (the server's, which moves every
// key and byte), the figure issue 9 targets (≤ 10 ms). The first checkpoint
// writes the whole history file; each later one (after 1 000 more rows) only
// the blocks sealed since. From outside: a real server with a 100 ms quiet
// spell, timed from the last byte fed until the checkpoint is on disk, and
// the files' sizes.

import { mkdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointWriter, checkpointPath, historyFilePath } from '../../src/server/checkpoint/index.js';
import { ScreenHost, type HostedScreen } from '../../src/server/screen-host/index.js';
import { LoopBlockWatch } from '../lib/server-block-watch.js';
import { BenchServer, serverMissing, waitUntil } from '../lib/server-instance.js';
import { formatSummary, summarize } from '../lib/stats.js';
import { generateFill, type StreamFile } from '../lib/streams.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const HISTORY_ROWS = 10_000;
const WIDTHS = [{ cols: 80, rows: 24 }, { cols: 200, rows: 50 }] as const;
const SERVER_QUIET_MS = 100;
const FILE_POLL_MS = 2;

interface InProcessSample {
  /** the first checkpoint of the session (its whole history file), or a later one */
  first: boolean;
  snapshotMs: number;
  snapshotBlockMs: number;
  snapshotHistogramMaxMs: number;
  writeMs: number;
  writeBlockMs: number;
  writeHistogramMaxMs: number;
  fileBytes: number;
  historyFileBytes: number;
  screenChars: number;
}

interface ServerSample {
  /** from the offset poll seeing the last byte until the file exists, ms (includes the quiet spell) */
  lastByteToFileMs: number;
  fileBytes: number;
  historyFileBytes: number;
}

/** More rows of the same kind, for the checkpoints after the first. */
const MORE_ROWS = 1000;

function key(w: { cols: number; rows: number }): string {
  return `${w.cols}x${w.rows}`;
}

async function filledScreen(host: ScreenHost, w: { cols: number; rows: number }, fill: StreamFile): Promise<HostedScreen> {
  const screen = host.open({ cols: w.cols, rows: w.rows, scrollbackRows: HISTORY_ROWS });
  screen.write(readFileSync(fill.path), { live: false });
  await screen.flush();
  return screen;
}

async function inProcessOnce(screen: HostedScreen, writer: CheckpointWriter, id: string, first: boolean): Promise<InProcessSample> {
  const watch = new LoopBlockWatch();
  const t0 = performance.now();
  const { snapshot: snap, commands, history: cut } = await screen.checkpoint();
  const t1 = performance.now();
  const snapBlock = watch.lap();
  // the same checkpoint a session writes (session.ts): live rows as data, the rest as meta, new history blocks to their file
  const outcome = await writer.write({
    sessionId: id, generation: '00'.repeat(16), offset: 1, cols: snap.cols, rows: snap.rows, createdAt: Date.now(),
    meta: { cwd: snap.cwd, title: snap.title, degraded: false, commands, snapshot: { ...snap, data: undefined }, history: cut.state },
    screen: snap.data,
    history: { epoch: cut.epoch, blocks: cut.blocks },
  });
  const t2 = performance.now();
  const writeBlock = watch.stop();
  if (outcome !== 'written') throw new Error(`checkpoint write was ${outcome}`);
  return {
    first,
    snapshotMs: t1 - t0, snapshotBlockMs: snapBlock.longestGapMs, snapshotHistogramMaxMs: snapBlock.histogramMaxMs,
    writeMs: t2 - t1, writeBlockMs: writeBlock.longestGapMs, writeHistogramMaxMs: writeBlock.histogramMaxMs,
    fileBytes: statSync(checkpointPath(writer.dir, id)).size, historyFileBytes: statSync(historyFilePath(writer.dir, id)).size,
    screenChars: snap.data.length,
  };
}

async function serverOnce(server: BenchServer, w: { cols: number; rows: number }, fill: StreamFile): Promise<ServerSample> {
  const s = await server.createSession(['sh', '-c', 'stty -opost; cat "$0"; exec cat', fill.path], w.cols, w.rows);
  const file = join(server.checkpointsDir, `${s.id}.ckpt`);
  await server.waitForOffset(s.id, fill.bytes, 300_000, FILE_POLL_MS);
  const fed = performance.now();
  await waitUntil(`checkpoint of ${s.id}`, () => existsSync(file), 120_000, FILE_POLL_MS);
  const hist = join(server.checkpointsDir, `${s.id}.hist`);
  const sample = { lastByteToFileMs: performance.now() - fed, fileBytes: statSync(file).size, historyFileBytes: existsSync(hist) ? statSync(hist).size : 0 };
  await server.deleteSession(s.id);
  return sample;
}

export const serverCheckpointSuite: Suite = {
  name: 'server-checkpoint',
  title: 'Server checkpoint of a 10 000-row session: time, size, event-loop block',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const dir = join(ctx.tmpDir, 'server-checkpoint');
    mkdirSync(dir, { recursive: true });
    const fills = new Map(WIDTHS.map((w) => [key(w), generateFill(dir, w.cols, HISTORY_ROWS)]));
    const warnings: string[] = [];
    const writer = ctx.owned.add(new CheckpointWriter({
      dir: join(dir, 'checkpoints'),
      log: { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    }));
    const host = ctx.owned.add(new ScreenHost({ historyBudgetBytes: 1024 ** 3, onFatal: (err) => warnings.push(`screen host: ${err.message}`) }));
    const screens = new Map<string, HostedScreen>();
    for (const w of WIDTHS) screens.set(key(w), await filledScreen(host, w, fills.get(key(w))!));
    // 1 000 more rows for each later checkpoint: the fill file's last rows, fed again
    const moreRows = new Map(WIDTHS.map((w) => {
      const text = readFileSync(fills.get(key(w))!.path, 'latin1').split('\r\n');
      return [key(w), Buffer.from(text.slice(text.length - 1 - MORE_ROWS).join('\r\n'), 'latin1')];
    }));
    const server = await BenchServer.start(ctx, { checkpointQuietMs: SERVER_QUIET_MS });

    const inProcess = new Map<string, InProcessSample[]>(WIDTHS.map((w) => [key(w), []]));
    const outside = new Map<string, ServerSample[]>(WIDTHS.map((w) => [key(w), []]));
    try {
      for (let r = 0; r < rounds; r++) {
        for (const w of WIDTHS) {
          const k = key(w);
          const screen = screens.get(k)!;
          // An id per round: the writer refuses a removed session's writes for good (a killed session's files stay gone).
          const id = `bench${w.cols}r${r}`;
          const first = await inProcessOnce(screen, writer, id, true);
          screen.write(moreRows.get(k)!, { live: false });
          await screen.flush();
          const later = await inProcessOnce(screen, writer, id, false);
          await writer.remove(id);
          for (const a of [first, later]) {
            inProcess.get(k)!.push(a);
            ctx.log(`  round ${r + 1} ${k} in process, ${a.first ? 'first' : 'after 1 000 more rows'}: snapshot ${a.snapshotMs.toFixed(1)} ms (block ${a.snapshotBlockMs.toFixed(1)} ms), write ${a.writeMs.toFixed(1)} ms (block ${a.writeBlockMs.toFixed(1)} ms), ${(a.fileBytes / 1e6).toFixed(3)} MB + history ${(a.historyFileBytes / 1e6).toFixed(2)} MB`);
          }
          const b = await serverOnce(server, w, fills.get(k)!);
          outside.get(k)!.push(b);
          ctx.log(`  round ${r + 1} ${k} server: file ${b.lastByteToFileMs.toFixed(0)} ms after the last byte, ${(b.fileBytes / 1e6).toFixed(2)} MB`);
        }
      }
    } finally {
      await server.close();
    }
    const f = (xs: number[]): string => formatSummary(summarize(xs));
    const rows = WIDTHS.flatMap((w) => [true, false].map((isFirst) => {
      const a = inProcess.get(key(w))!.filter((x) => x.first === isFirst);
      const b = outside.get(key(w))!;
      return [`${key(w)}, ${isFirst ? 'first checkpoint' : `after ${MORE_ROWS} more rows`}`,
        f(a.map((x) => x.snapshotMs)), f(a.map((x) => Math.max(x.snapshotBlockMs, x.snapshotHistogramMaxMs))),
        f(a.map((x) => x.writeMs)), f(a.map((x) => Math.max(x.writeBlockMs, x.writeHistogramMaxMs))),
        f(a.map((x) => x.fileBytes / 1e6)), f(a.map((x) => x.historyFileBytes / 1e6)),
        isFirst ? f(b.map((x) => x.lastByteToFileMs)) : '', isFirst ? f(b.map((x) => (x.fileBytes + x.historyFileBytes) / 1e6)) : ''];
    }));
    return {
      tables: [{
        title: `Checkpoint of ${HISTORY_ROWS} rows of history (${rounds} round${rounds > 1 ? 's' : ''})`,
        columns: ['checkpoint', 'cut in the screen host, ms', 'its longest loop block, ms', 'write(), ms', 'its longest loop block, ms',
          'checkpoint file, MB', 'history file, MB', `server: last byte → on disk, ms (${SERVER_QUIET_MS} ms quiet included)`, 'server: both files, MB'],
        rows,
        notes: [
          `In process (the bench's own Node): a ScreenHost screen (scrollback ${HISTORY_ROWS}, the default live rows; parsed in the host's worker thread) fed fill-COLS.bin, then the session's checkpoint path: \`await screen.checkpoint()\` (the host serializes the live rows in slices, seals the history's open block and hands its blocks over in shared memory) and \`await writer.write(cp)\` (CheckpointWriter: new history blocks appended to <id>.hist and synced, then the checkpoint encoded, SHA-256, temp file, fsync, rename, fsync dir). The first checkpoint of a session writes its whole history file; the next, after ${MORE_ROWS} more rows, appends only the new blocks.`,
          'Longest loop block: the larger of the longest gap between setImmediate turns and monitorEventLoopDelay\'s max (1 ms resolution). Target (issue 9): ≤ 10 ms.',
          `Server: private server with TEND_CHECKPOINT_QUIET_MS=${SERVER_QUIET_MS}; a session \`cat\`s the same file; from the ${FILE_POLL_MS} ms offset poll seeing the last byte fed until <id>.ckpt exists (polled every ${FILE_POLL_MS} ms). Includes the rest of the parse and the quiet spell (and any checkpoints while the output still flowed).`,
          ...(warnings.length ? [`Writer said: ${warnings.join('; ')}`] : []),
        ],
      }],
      data: { rounds, inProcess: Object.fromEntries(inProcess), server: Object.fromEntries(outside) },
    };
  },
};
