// Catch-up after a crash: SESSIONS sessions, each with ~100 KB of output its
// holder read while no server was running (so: since the last checkpoint),
// the server SIGKILLed, then started again. Timed from the spawn of the new
// server until it reports ready — it does so only after every session has
// loaded its checkpoint, replayed the holder's ring from the checkpoint's
// offset and parsed it — and until `GET /v1/sessions` shows every session
// running at exactly its holder's offset. Target (issue 3): about 1 s.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HolderConnection } from '../../src/holder-client/index.js';
import { loadCheckpoint } from '../../src/server/checkpoint/index.js';
import { BenchServer, serverMissing, waitUntil, type BenchSession } from '../lib/server-instance.js';
import { formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const FULL_SESSIONS = 100;
const QUICK_SESSIONS = 20;
const PENDING_BYTES = 100_000;
const CHECKPOINT_QUIET_MS = 200;
const WAIT_LIMIT_MS = 120_000;
const POLL_MS = 20;

interface Sample {
  sessions: number;
  pendingBytesEach: number;
  /** spawn of the server until it reported ready (after recovering every session) */
  spawnToReadyMs: number;
  /** spawn until GET /v1/sessions answered with every session running at its holder's offset */
  spawnToVerifiedMs: number;
  /** the server's own "recovered sessions in N ms" log line */
  serverRecoveryMs: number;
  running: number;
  atHolderOffset: number;
}

/** PENDING_BYTES of the coloured log stream, with CR LF line ends so `stty -opost` keeps the bytes exact and the screen sane. */
function pendingChunk(ctx: BenchContext, dir: string): { path: string; bytes: number } {
  const text = readFileSync(ctx.streams[0]!.path).subarray(0, PENDING_BYTES).toString('latin1').replace(/\n/g, '\r\n');
  const path = join(dir, 'pending.bin');
  writeFileSync(path, Buffer.from(text, 'latin1'));
  return { path, bytes: Buffer.byteLength(text, 'latin1') };
}

/**
 * Each release of the gate (one line on its FIFO) prints the chunk once. The
 * `if`: a reader that reopens the FIFO before the last writer has closed it
 * reads EOF, not a line, and must not print again.
 */
function gatedArgv(fifo: string, chunk: string): string[] {
  return ['sh', '-c', 'stty -opost; while :; do if read go < "$0"; then cat "$1"; fi; done', fifo, chunk];
}

async function holderOffset(socket: string): Promise<number> {
  const conn = await HolderConnection.connect(socket, { timeoutMs: 10_000 });
  try {
    return (await conn.state()).offset;
  } finally {
    conn.dispose();
  }
}

function lastRecoveryMs(logFile: string): number {
  const all = [...readFileSync(logFile, 'utf8').matchAll(/recovered sessions in (\d+) ms/g)];
  return all.length ? Number(all[all.length - 1]![1]) : Number.NaN;
}

async function waitForCheckpoints(server: BenchServer, sessions: BenchSession[], offset: number): Promise<void> {
  const pending = new Set(sessions.map((s) => s.id));
  await waitUntil(`checkpoints at offset ${offset}`, async () => {
    for (const id of [...pending]) {
      const r = await loadCheckpoint(server.checkpointsDir, id);
      if (r.ok && r.checkpoint.offset === offset) pending.delete(id);
    }
    return pending.size === 0;
  }, WAIT_LIMIT_MS, 100);
}

export const serverRecoverySuite: Suite = {
  name: 'server-recovery',
  title: 'Server recovery: sessions with output pending caught up after SIGKILL',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : Math.min(ctx.rounds, 3);
    const count = ctx.quick ? QUICK_SESSIONS : FULL_SESSIONS;
    const dir = join(ctx.tmpDir, 'server-recovery');
    mkdirSync(dir, { recursive: true });
    const chunk = pendingChunk(ctx, dir);
    const fifos = Array.from({ length: count }, (_, i) => join(dir, `go${i}.fifo`));
    for (const f of fifos) execFileSync('mkfifo', ['-m', '0600', f]);
    const release = (): Promise<void[]> => Promise.all(fifos.map((f) => writeFile(f, '\n')));

    const server = await BenchServer.start(ctx, { checkpointQuietMs: CHECKPOINT_QUIET_MS });
    const samples: Sample[] = [];
    try {
      const sessions: BenchSession[] = [];
      for (const f of fifos) sessions.push(await server.createSession(gatedArgv(f, chunk.path)));
      const socket = (s: BenchSession): string => join(server.client.paths.holdersDir, `${s.id}.sock`);
      // the first chunk goes through a live server and into a checkpoint
      await release();
      let expected = chunk.bytes;
      for (const s of sessions) await server.waitForOffset(s.id, expected, WAIT_LIMIT_MS, POLL_MS);
      await waitForCheckpoints(server, sessions, expected);

      for (let r = 0; r < rounds; r++) {
        await server.crash();
        await release();
        expected += chunk.bytes;
        for (const s of sessions) {
          const at = expected;
          await waitUntil(`holder of ${s.id} to read the pending chunk`, async () => (await holderOffset(socket(s))) === at, WAIT_LIMIT_MS, POLL_MS);
        }
        const t0 = performance.now();
        const spawnToReadyMs = await server.launch();
        const list = await server.listSessions();
        const spawnToVerifiedMs = performance.now() - t0;
        const running = list.filter((s) => s.status === 'running').length;
        const atHolderOffset = list.filter((s) => s.offset === expected).length;
        const sample: Sample = {
          sessions: count, pendingBytesEach: chunk.bytes, spawnToReadyMs, spawnToVerifiedMs,
          serverRecoveryMs: lastRecoveryMs(server.serverLog), running, atHolderOffset,
        };
        samples.push(sample);
        ctx.log(`  round ${r + 1}: ready ${spawnToReadyMs.toFixed(0)} ms (server's recovery ${sample.serverRecoveryMs} ms), verified ${spawnToVerifiedMs.toFixed(0)} ms; ${running}/${count} running, ${atHolderOffset}/${count} at the holder's offset`);
        // the next round starts from checkpoints of everything so far
        if (r + 1 < rounds) await waitForCheckpoints(server, sessions, expected);
      }
    } finally {
      await server.close();
    }
    const f = (pick: (s: Sample) => number): string => formatSummary(summarize(samples.map(pick)));
    return {
      tables: [{
        title: `Recovery of ${count} sessions, ${(chunk.bytes / 1e3).toFixed(0)} kB pending each (${rounds} round${rounds > 1 ? 's' : ''})`,
        columns: ['what', 'figure'],
        rows: [
          ['spawn of the server → ready (every session recovered and parsed), ms', f((s) => s.spawnToReadyMs)],
          ['the server\'s own recovery (log: "recovered sessions in N ms"), ms', f((s) => s.serverRecoveryMs)],
          ['spawn → `GET /v1/sessions` shows all at their holders\' offsets, ms', f((s) => s.spawnToVerifiedMs)],
          ['sessions running / at the holder\'s offset (worst round)',
            `${Math.min(...samples.map((s) => s.running))} / ${Math.min(...samples.map((s) => s.atHolderOffset))} of ${count}`],
        ],
        notes: [
          `Each session runs \`stty -opost; while :; do if read go < FIFO; then cat CHUNK; fi; done\`, CHUNK = the first ${PENDING_BYTES / 1e3} kB of text-sgr with CR LF line ends (${chunk.bytes} bytes). The first chunk goes through a live server (TEND_CHECKPOINT_QUIET_MS=${CHECKPOINT_QUIET_MS}) and into each session's checkpoint (offset checked by loading it).`,
          'Then per round: SIGKILL the server; release every gate, so each holder reads one more chunk with no server; wait until every holder\'s STATE shows it; start the server (its main with a ready pipe, as `tend server start` does; Node start-up included) and time.',
          'The server reports ready only after recoverAll(): checkpoint loaded, DUMP_SINCE(checkpoint offset) replayed and parsed for every session. The holder\'s offset is known exactly (gated output) and checked by STATE before the restart.',
        ],
      }],
      data: { rounds, samples },
    };
  },
};
