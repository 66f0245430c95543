import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointWriter, loadCheckpoint, type Checkpoint, type CheckpointFs, type CheckpointLogger } from './index.js';
import { nodeFs } from './files.js';
import { makeReadOnlyForChild, moduleUrlForAnotherUser, runAsAnotherUser } from '../../../test/support/as-another-user.js';

const TEST_TIMEOUT_MS = 60_000;
const CHILD_TIMEOUT_MS = 30_000;
const QUICK_RETRY_MS = 20;
const dirs: string[] = [];
const writers: CheckpointWriter[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-ckpt-writer-'));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (writers.length) writers.pop()!.dispose();
  while (dirs.length) {
    const d = dirs.pop()!;
    chmodSync(d, 0o700);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) chmodSync(join(d, e.name), 0o700);
    rmSync(d, { recursive: true, force: true });
  }
});

class RecordingLog implements CheckpointLogger {
  readonly lines: Array<{ level: string; message: string }> = [];
  info(message: string): void {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string, err?: unknown): void {
    this.lines.push({ level: 'error', message: err ? `${message}: ${(err as Error).message}` : message });
  }
  at(level: string): string[] {
    return this.lines.filter((l) => l.level === level).map((l) => l.message);
  }
}

function writer(dir: string, log: CheckpointLogger, fs?: CheckpointFs): CheckpointWriter {
  const w = new CheckpointWriter({ dir, log, fs, retryIntervalMs: QUICK_RETRY_MS });
  writers.push(w);
  return w;
}

function checkpoint(id: string, offset: number, screenBytes = 200_000): Checkpoint {
  return {
    sessionId: id, generation: 'c0ffee', offset, cols: 80, rows: 24, createdAt: offset,
    meta: { cwd: '/w' }, screen: `\x1b[31m${offset}\x1b[0m `.repeat(Math.ceil(screenBytes / 12)),
  };
}

const isTemp = (path: unknown) => String(path).includes('.ckpt.tmp-');

/** Real files, with the temp files of checkpoints opened on /dev/full while `full` is true: writes then fail with the kernel's ENOSPC. */
function diskThatFills(): { fs: CheckpointFs; state: { full: boolean } } {
  const state = { full: true };
  const open = ((path: string, flags?: string, mode?: number) =>
    state.full && isTemp(path) ? nodeFs.open('/dev/full', 'w') : nodeFs.open(path, flags, mode)) as CheckpointFs['open'];
  return { fs: { ...nodeFs, open }, state };
}

describe('CheckpointWriter', { timeout: TEST_TIMEOUT_MS }, () => {
  test('writes a checkpoint and announces it with its size and time', async () => {
    const dir = join(tempDir(), 'checkpoints'); // created on first write
    const w = writer(dir, new RecordingLog());
    const written = once(w, 'checkpoint-written');
    assert.equal(await w.write(checkpoint('a1', 42)), 'written');
    const [event] = (await written) as [{ sessionId: string; bytes: number; ms: number; offset: number }];
    assert.equal(event.sessionId, 'a1');
    assert.equal(event.offset, 42);
    assert.ok(event.bytes > 200_000);
    assert.ok(event.ms >= 0);
    const loaded = await w.load('a1');
    assert.ok(loaded.ok);
    assert.equal(loaded.checkpoint.offset, 42);
  });

  test('never writes one session twice at once, and the newest request supersedes the waiting ones', async () => {
    const dir = tempDir();
    let open = 0;
    let maxOpen = 0;
    const counting: CheckpointFs = {
      ...nodeFs,
      open: (async (path: string, flags?: string, mode?: number) => {
        const handle: FileHandle = await nodeFs.open(path, flags, mode);
        if (!isTemp(path)) return handle;
        open++;
        maxOpen = Math.max(maxOpen, open);
        const close = handle.close.bind(handle);
        handle.close = async () => {
          open--;
          return close();
        };
        return handle;
      }) as CheckpointFs['open'],
    };
    const w = writer(dir, new RecordingLog(), counting);
    const offsets: number[] = [];
    w.on('checkpoint-written', (e) => offsets.push(e.offset));
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map((n) => w.write(checkpoint('s', n, 2_000_000))));
    assert.deepEqual(outcomes, ['written', 'superseded', 'superseded', 'superseded', 'written']);
    assert.deepEqual(offsets, [1, 5]);
    assert.equal(maxOpen, 1);
    const loaded = await loadCheckpoint(dir, 's');
    assert.ok(loaded.ok);
    assert.equal(loaded.checkpoint.offset, 5);
  });

  test('writes different sessions independently', async () => {
    const dir = tempDir();
    const w = writer(dir, new RecordingLog());
    const outcomes = await Promise.all(['a', 'b', 'c'].map((id, i) => w.write(checkpoint(id, i))));
    assert.deepEqual(outcomes, ['written', 'written', 'written']);
    assert.deepEqual(readdirSync(dir).sort(), ['a.ckpt', 'b.ckpt', 'c.ckpt']);
  });

  test('a full disk stops checkpoints with one warning, skips writes, and resumes once when space returns', async () => {
    const dir = tempDir();
    const log = new RecordingLog();
    const disk = diskThatFills();
    const w = writer(dir, log, disk.fs);
    const disabled = once(w, 'checkpoints-disabled');
    const first = await Promise.all([w.write(checkpoint('a', 1)), w.write(checkpoint('b', 1)), w.write(checkpoint('c', 1))]);
    await disabled;
    assert.ok(first.every((o) => o === 'failed' || o === 'skipped'), String(first));
    assert.equal(await w.write(checkpoint('a', 2)), 'skipped');
    assert.equal(await w.write(checkpoint('d', 2)), 'skipped');
    assert.deepEqual(w.status.state, 'disabled');
    assert.equal(w.status.state === 'disabled' && w.status.code, 'ENOSPC');
    assert.deepEqual(log.at('warn'), [
      `checkpoints stopped: disk full (ENOSPC) at ${dir}; sessions keep running, recovery will replay from holders`,
    ]);
    assert.deepEqual(log.at('error'), [], 'disk trouble is not logged per write');
    assert.deepEqual(readdirSync(dir), [], 'nothing half-written is left behind');

    const resumed = once(w, 'checkpoints-resumed');
    disk.state.full = false;
    const [{ skippedSessionIds }] = (await resumed) as [{ skippedSessionIds: string[] }];
    assert.deepEqual(skippedSessionIds.sort(), ['a', 'b', 'c', 'd']);
    assert.equal(w.enabled, true);
    assert.deepEqual(log.at('info'), [`checkpoints resumed at ${dir}`]);
    assert.equal(await w.write(checkpoint('a', 3)), 'written');
    assert.equal(log.at('warn').length, 1);
  });

  test('stays quiet while the disk stays full across several retries', async () => {
    const dir = tempDir();
    const log = new RecordingLog();
    const disk = diskThatFills();
    const w = writer(dir, log, disk.fs);
    await w.write(checkpoint('a', 1));
    // Wait for several probes to have run (and failed) by watching the disk.
    let probes = 0;
    const probed = new Promise<void>((resolve) => {
      const open = disk.fs.open;
      disk.fs.open = ((path: string, flags?: string, mode?: number) => {
        if (String(path).includes('probe.ckpt.tmp-') && ++probes === 3) setImmediate(resolve);
        return open(path, flags, mode);
      }) as CheckpointFs['open'];
    });
    await probed;
    assert.equal(w.enabled, false);
    assert.equal(log.lines.length, 1, JSON.stringify(log.lines));
  });

  test('logs any other failure with its session and offset, and keeps checkpointing', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'blocked.ckpt')); // a directory where the file should go: rename fails (EISDIR)
    const log = new RecordingLog();
    const w = writer(dir, log);
    const failed = once(w, 'checkpoint-failed');
    assert.equal(await w.write(checkpoint('blocked', 77)), 'failed');
    const [event] = (await failed) as [{ sessionId: string; code: string }];
    assert.equal(event.sessionId, 'blocked');
    assert.equal(event.code, 'EISDIR');
    assert.equal(log.at('error').length, 1);
    assert.match(log.at('error')[0]!, /checkpoint of session blocked \(offset 77\) could not be written/);
    assert.equal(w.enabled, true);
    assert.equal(await w.write(checkpoint('fine', 1)), 'written');
    assert.ok(!readdirSync(dir).some((n) => n.includes('.tmp-')), 'the temp file was removed');
  });

  test('removing a session waits for its write in flight, drops the queued one, and deletes the file', async () => {
    const dir = tempDir();
    const w = writer(dir, new RecordingLog());
    const inFlight = w.write(checkpoint('gone', 1, 3_000_000));
    const queued = w.write(checkpoint('gone', 2, 3_000_000));
    await w.remove('gone');
    assert.equal(await inFlight, 'written');
    assert.equal(await queued, 'skipped');
    assert.equal(existsSync(join(dir, 'gone.ckpt')), false);
  });

  test('a write of a removed session asked for after the removal is refused: its files stay gone', async () => {
    const dir = tempDir();
    const w = writer(dir, new RecordingLog());
    assert.equal(await w.write(checkpoint('killed', 1, 1000)), 'written');
    await w.remove('killed');
    // A checkpoint cut before the kill and handed over after it (its snapshot took a while).
    assert.equal(await w.write({ ...checkpoint('killed', 2, 1000), history: { epoch: 1, blocks: [] } }), 'skipped');
    await w.drain();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('drain settles after every requested write', async () => {
    const dir = tempDir();
    const w = writer(dir, new RecordingLog());
    let count = 0;
    w.on('checkpoint-written', () => count++);
    for (const id of ['a', 'b', 'c']) void w.write(checkpoint(id, 1, 1_000_000));
    await w.drain();
    assert.equal(count, 3);
  });

  test('a directory this user may not write stops checkpoints with one warning (run as another user)', async () => {
    const parent = tempDir();
    const dir = join(parent, 'checkpoints');
    mkdirSync(dir);
    makeReadOnlyForChild(dir, [parent]);
    const writerModule = moduleUrlForAnotherUser(join(import.meta.dirname, 'index.js'));
    const child = await runAsAnotherUser(`
      import { CheckpointWriter } from ${JSON.stringify(writerModule)};
      const lines = [];
      const log = { info: (m) => lines.push(['info', m]), warn: (m) => lines.push(['warn', m]), error: (m) => lines.push(['error', m]) };
      const w = new CheckpointWriter({ dir: ${JSON.stringify(dir)}, log });
      const cp = (id, offset) => ({ sessionId: id, generation: 'ab', offset, cols: 80, rows: 24, createdAt: 0, meta: {}, screen: 'x' });
      const outcomes = await Promise.all([w.write(cp('a', 1)), w.write(cp('b', 1))]);
      outcomes.push(await w.write(cp('a', 2)));
      console.log(JSON.stringify({ outcomes, status: w.status, lines }));
      w.dispose();`, { timeoutMs: CHILD_TIMEOUT_MS });
    assert.equal(child.code, 0, child.stderr);
    const r = child.result as { outcomes: string[]; status: { state: string; code: string }; lines: string[][] };
    assert.equal(r.status.state, 'disabled');
    assert.equal(r.status.code, 'EACCES');
    assert.equal(r.outcomes[2], 'skipped');
    assert.deepEqual(r.lines, [
      ['warn', `checkpoints stopped: no permission to write (EACCES) at ${dir}; sessions keep running, recovery will replay from holders`],
    ]);
    assert.deepEqual(readdirSync(dir), []);
  });
});
