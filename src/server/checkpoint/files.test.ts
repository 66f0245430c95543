import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { collectStale, loadCheckpoint, removeCheckpoint, writeCheckpoint, encodeCheckpoint, CORRUPT_KEEP_MS, type Checkpoint } from './index.js';

const TEST_TIMEOUT_MS = 60_000;
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-ckpt-'));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A screen like a busy TUI's: colours on blanks, wide characters, cursor moves. */
function busyScreen(bytes: number): string {
  const row = '\x1b[0m\x1b[48;5;236m  \x1b[38;2;80;200;120m✔ 테스트 통과\x1b[0m \x1b[7m 日本語 \x1b[27m 🚀 log line\x1b[K\r\n';
  return row.repeat(Math.ceil(bytes / Buffer.byteLength(row)));
}

function checkpoint(id: string, offset: number, screen: string): Checkpoint {
  return { sessionId: id, generation: 'feedface', offset, cols: 120, rows: 40, createdAt: 1_700_000_000_000 + offset, meta: { title: `t${offset}` }, screen };
}

function files(dir: string): string[] {
  return readdirSync(dir).sort();
}

async function expectCorruptMovedAside(dir: string, id: string, damage: (bytes: Buffer) => Buffer, detail: RegExp): Promise<void> {
  await writeCheckpoint(dir, checkpoint(id, 10, busyScreen(50_000)));
  const path = join(dir, `${id}.ckpt`);
  const damaged = damage(readFileSync(path));
  writeFileSync(path, damaged);
  const result = await loadCheckpoint(dir, id, { now: () => 1234 });
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.equal(result.reason, 'corrupt');
  assert.match(result.detail, detail);
  assert.match(result.detail, new RegExp(`moved aside to .*${id}\\.ckpt\\.corrupt-1234`));
  assert.equal(existsSync(path), false, 'the damaged file no longer passes for a checkpoint');
  assert.ok(readFileSync(join(dir, `${id}.ckpt.corrupt-1234`)).equals(damaged), 'it is kept, byte for byte, for inspection');
  assert.equal((await loadCheckpoint(dir, id)).ok, false);
}

describe('checkpoint files', { timeout: TEST_TIMEOUT_MS }, () => {
  test('write then load returns the same checkpoint, in a private file, with no temp file left', async () => {
    const dir = tempDir();
    const cp = checkpoint('a1', 123_456, busyScreen(1_500_000));
    const { bytes, path } = await writeCheckpoint(dir, cp);
    assert.equal(path, join(dir, 'a1.ckpt'));
    assert.equal(statSync(path).size, bytes);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(files(dir), ['a1.ckpt']);
    const loaded = await loadCheckpoint(dir, 'a1');
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.checkpoint, cp);
  });

  test('a second write replaces the first', async () => {
    const dir = tempDir();
    await writeCheckpoint(dir, checkpoint('a1', 1, 'old'));
    await writeCheckpoint(dir, checkpoint('a1', 2, 'new'));
    const loaded = await loadCheckpoint(dir, 'a1');
    assert.ok(loaded.ok);
    assert.equal(loaded.checkpoint.offset, 2);
    assert.equal(loaded.checkpoint.screen, 'new');
    assert.deepEqual(files(dir), ['a1.ckpt']);
  });

  test('reports a session without a checkpoint as missing', async () => {
    const result = await loadCheckpoint(tempDir(), 'nothing');
    assert.deepEqual(result.ok ? null : result.reason, 'missing');
  });

  test('a truncated file is corrupt and moved aside', async () => {
    await expectCorruptMovedAside(tempDir(), 'tr', (b) => b.subarray(0, Math.floor(b.length / 2)), /truncated/);
  });

  test('a flipped byte is corrupt and moved aside', async () => {
    await expectCorruptMovedAside(tempDir(), 'fl', (b) => {
      b[b.length - 1000]! ^= 0x20;
      return b;
    }, /checksum/);
  });

  test('a wrong magic is corrupt and moved aside', async () => {
    await expectCorruptMovedAside(tempDir(), 'mg', (b) => {
      b.write('GARBAGE!', 0, 'ascii');
      return b;
    }, /TENDCKPT/);
  });

  test('a file from a newer format is unsupported and left where it is', async () => {
    const dir = tempDir();
    await writeCheckpoint(dir, checkpoint('nw', 1, 'x'));
    const path = join(dir, 'nw.ckpt');
    const bytes = readFileSync(path);
    bytes.writeUInt16LE(99, 8);
    writeFileSync(path, bytes);
    const result = await loadCheckpoint(dir, 'nw');
    assert.ok(!result.ok);
    assert.equal(result.reason, 'unsupported');
    assert.ok(readFileSync(path).equals(bytes));
  });

  test('refuses a session id that would leave the directory', async () => {
    await assert.rejects(writeCheckpoint(tempDir(), checkpoint('../etc', 1, 'x')), /not a valid session id/);
  });

  test('removing deletes the file, and removing a missing one is fine', async () => {
    const dir = tempDir();
    await writeCheckpoint(dir, checkpoint('rm', 1, 'x'));
    await removeCheckpoint(dir, 'rm');
    await removeCheckpoint(dir, 'rm');
    assert.deepEqual(files(dir), []);
  });

  test('a writer killed mid-write leaves the old checkpoint intact and a temp file that collection removes', async () => {
    const dir = tempDir();
    const before = checkpoint('cr', 500, busyScreen(20_000));
    await writeCheckpoint(dir, before);
    const filesModule = pathToFileURL(join(import.meta.dirname, 'files.js')).href;
    // A child writes a big checkpoint of the same session; it is SIGKILLed as
    // soon as its temp file has bytes in it — a real crash in the middle of a write.
    let killedMidWrite = false;
    for (let attempt = 0; attempt < 5 && !killedMidWrite; attempt++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', `
        import { writeCheckpoint } from ${JSON.stringify(filesModule)};
        const row = 'crash test row \\x1b[32mgreen\\x1b[0m 한글\\r\\n';
        await writeCheckpoint(${JSON.stringify(dir)}, { sessionId: 'cr', generation: 'feedface', offset: 900, cols: 80,
          rows: 24, createdAt: 0, meta: {}, screen: row.repeat(2_000_000) });`], { stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const watcher = watch(dir, (_event, name) => {
        if (!name || !String(name).includes('.ckpt.tmp-') || killedMidWrite) return;
        try {
          if (statSync(join(dir, String(name))).size > 0 && child.pid) {
            process.kill(child.pid, 'SIGKILL');
            killedMidWrite = true;
          }
        } catch {
          /* renamed away already: this attempt finished the write */
        }
      });
      await exited;
      watcher.close();
      if (!killedMidWrite) await writeCheckpoint(dir, before); // it got through; put the old one back and retry
    }
    assert.ok(killedMidWrite, 'the child was killed while writing');
    const temps = files(dir).filter((n) => n.includes('.ckpt.tmp-'));
    assert.equal(temps.length, 1);
    const loaded = await loadCheckpoint(dir, 'cr');
    assert.ok(loaded.ok, 'the half-written temp file is ignored');
    assert.deepEqual(loaded.checkpoint, before);
    const report = await collectStale(dir);
    assert.deepEqual(report.tempFiles, temps);
    assert.deepEqual(files(dir), ['cr.ckpt']);
  });

  test('collection removes orphans of gone sessions and damaged files past their keep time, nothing else', async () => {
    const dir = tempDir();
    const now = 1_800_000_000_000;
    for (const id of ['live1', 'live2', 'gone']) await writeCheckpoint(dir, checkpoint(id, 1, 'x'));
    writeFileSync(join(dir, `old.ckpt.corrupt-${now - CORRUPT_KEEP_MS - 1}`), 'x');
    writeFileSync(join(dir, `new.ckpt.corrupt-${now - 1000}`), 'x');
    writeFileSync(join(dir, 'live1.ckpt.tmp-1-abcd'), Buffer.concat(await encodeCheckpoint(checkpoint('live1', 2, 'y'))).subarray(0, 30));
    writeFileSync(join(dir, 'README'), 'not ours');
    const report = await collectStale(dir, { liveSessionIds: ['live1', 'live2'], now: () => now });
    assert.deepEqual(report, {
      tempFiles: ['live1.ckpt.tmp-1-abcd'],
      orphans: ['gone.ckpt'],
      expiredCorrupt: [`old.ckpt.corrupt-${now - CORRUPT_KEEP_MS - 1}`],
    });
    assert.deepEqual(files(dir), ['README', 'live1.ckpt', 'live2.ckpt', `new.ckpt.corrupt-${now - 1000}`].sort());
  });

  test('collection of a directory that does not exist yet finds nothing', async () => {
    assert.deepEqual(await collectStale(join(tempDir(), 'absent')), { tempFiles: [], orphans: [], expiredCorrupt: [] });
  });
});
