import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryFiles, encodeBlockRecord, historyFilePath, readHistoryFile, type StoredBlock } from './history-file.js';

/** A block of `rows` rows starting at `firstRow`; the file layer never decodes rows, so any bytes do. */
function block(firstRow: number, rows: number, links: StoredBlock['links'] = []): StoredBlock {
  const data = new Uint8Array(rows * 3).map((_, i) => (firstRow + i) & 0xff);
  return { firstRow, rows, data, starts: Uint32Array.from({ length: rows }, (_, i) => i * 3), links };
}

function withDir(run: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-hist-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

describe('history files', () => {
  test('a sync appends only the blocks sealed since the last one, and they read back whole', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    const a = [block(0, 256), block(256, 100, [{ id: 'k', uri: 'https://e.x/é' }])];
    await files.sync('s1', { epoch: 7, blocks: a });
    const first = statSync(historyFilePath(dir, 's1')).size;
    const b = [...a, block(356, 256)];
    await files.sync('s1', { epoch: 7, blocks: b });
    assert.equal(statSync(historyFilePath(dir, 's1')).size, first + encodeBlockRecord(b[2]!).length, 'only the new block was written');
    const back = await readHistoryFile(dir, 's1', 612);
    assert.equal(back.problem, '');
    assert.deepEqual(back.blocks, b);
  }));

  test('reading stops at the rows the checkpoint covers and cuts the file there', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10), block(20, 10)] });
    const back = await readHistoryFile(dir, 's1', 25);
    assert.deepEqual(back.blocks.map((x) => x.firstRow), [0, 10], 'the block reaching past row 25 belongs to the replay after the checkpoint');
    assert.equal(statSync(historyFilePath(dir, 's1')).size, back.bytes);
  }));

  test('a torn last record is cut off and reported; the blocks before it are kept', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10)] });
    const path = historyFilePath(dir, 's1');
    truncateSync(path, statSync(path).size - 5);
    const back = await readHistoryFile(dir, 's1', 1000);
    assert.deepEqual(back.blocks.map((x) => x.firstRow), [0]);
    assert.match(back.problem, /torn or damaged record/);
    assert.equal(statSync(path).size, back.bytes);
  }));

  test('a flipped byte fails its record\'s CRC: that block is skipped, the blocks before and after it are read and the file is left whole', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10), block(20, 10), block(30, 10)] });
    const path = historyFilePath(dir, 's1');
    const bytes = readFileSync(path);
    const second = 12 + encodeBlockRecord(block(0, 10)).length;
    bytes[second + 20] = bytes[second + 20]! ^ 0x10;
    writeFileSync(path, bytes);
    const back = await readHistoryFile(dir, 's1', 1000);
    // Rows 10..19 are gone: a gap the history marks as lost.
    assert.deepEqual(back.blocks, [block(0, 10), block(20, 10), block(30, 10)]);
    assert.match(back.problem, /damaged record at bytes \d+\.\.\d+ \(skipped\)/);
    assert.equal(statSync(path).size, bytes.length, 'nothing the disk holds is cut away');
  }));

  test('a flipped bit in a record\'s length is found past by a scan for the next record that checks out', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10), block(20, 10)] });
    const path = historyFilePath(dir, 's1');
    const bytes = readFileSync(path);
    const second = 12 + encodeBlockRecord(block(0, 10)).length;
    bytes[second + 1] = bytes[second + 1]! ^ 0x01; // the length's second byte: the record claims 256 bytes more
    writeFileSync(path, bytes);
    const back = await readHistoryFile(dir, 's1', 1000);
    assert.deepEqual(back.blocks, [block(0, 10), block(20, 10)]);
    assert.match(back.problem, /damaged record at bytes/);
  }));

  test('a flipped bit in the file header costs no block', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10)] });
    const path = historyFilePath(dir, 's1');
    const bytes = readFileSync(path);
    bytes[3] = bytes[3]! ^ 0x04;
    writeFileSync(path, bytes);
    const back = await readHistoryFile(dir, 's1', 1000);
    assert.deepEqual(back.blocks, [block(0, 10), block(10, 10)]);
    assert.match(back.problem, /header is damaged/);
  }));

  test('another epoch (an erased or replaced history) or a gap rewrites the file instead of appending', withDir(async (dir) => {
    const files = new HistoryFiles(dir);
    await files.sync('s1', { epoch: 1, blocks: [block(0, 10), block(10, 10)] });
    await files.sync('s1', { epoch: 2, blocks: [block(40, 10)] });
    assert.deepEqual((await readHistoryFile(dir, 's1', 1000)).blocks.map((x) => x.firstRow), [40]);
    // Blocks dropped from memory while checkpoints were off: the next one does not follow the file's last.
    await files.sync('s1', { epoch: 2, blocks: [block(40, 10), block(50, 10)] });
    await files.sync('s1', { epoch: 2, blocks: [block(70, 10)] });
    assert.deepEqual((await readHistoryFile(dir, 's1', 1000)).blocks.map((x) => x.firstRow), [70]);
  }));

  test('a missing file is an empty history; one that is not a history file says so', withDir(async (dir) => {
    assert.deepEqual(await readHistoryFile(dir, 'none', 10), { blocks: [], bytes: 0, problem: '' });
    writeFileSync(historyFilePath(dir, 'junk'), 'not a history file at all');
    assert.match((await readHistoryFile(dir, 'junk', 10)).problem, /is not a tend history file/);
  }));
});
