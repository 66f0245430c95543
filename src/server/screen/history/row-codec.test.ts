import { test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import type { Terminal } from '@xterm/headless';
import type { RawBufferLine } from '../scrollback-tap.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { decodeRow, encodeRow, LinkTable } from './row-codec.js';

function terminalOf(cols: number, text: string): Promise<Terminal> {
  const t = new xtermHeadless.Terminal({ cols, rows: 10, scrollback: 0, allowProposedApi: true });
  return new Promise((resolve) => t.write(text, () => resolve(t)));
}

function rawLine(t: Terminal, y: number): RawBufferLine {
  const core = (t as unknown as { _core: { _bufferService: { buffers: { normal: { lines: { get(i: number): RawBufferLine } } } } } })._core;
  return core._bufferService.buffers.normal.lines.get(y);
}

function encode(line: RawBufferLine): Uint8Array {
  const out = new ByteWriter(16);
  encodeRow(line, out, new LinkTable(), () => undefined);
  return out.toBytes();
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return bytes;
}

const TEXT = 1;

test('a run of plain characters is written count first, in the fewest bytes, whatever the row\'s width', async () => {
  // Runs of 127 and 128 cells sit on either side of a count's second byte; a
  // 300-column row makes room for a 2-byte count before every run.
  for (const n of [1, 5, 127, 128, 200, 300]) {
    const t = await terminalOf(300, 'x'.repeat(n));
    const bytes = encode(rawLine(t, 0));
    assert.deepEqual([...bytes], [0, ...varint(300), TEXT, ...varint(n), ...new Array<number>(n).fill(0x78)], `a run of ${n}`);
    t.dispose();
  }
});

test('runs of every length in one wide row, colours between them, decode to the row cell for cell', async () => {
  const text = `${'a'.repeat(100)}\x1b[31m${'b'.repeat(150)}\x1b[0m${'c'.repeat(30)}\x1b[38;5;200m\u00e9\u4e2d${'d'.repeat(18)}`;
  const t = await terminalOf(300, text);
  const line = rawLine(t, 0);
  const row = decodeRow(new ByteReader(encode(line)));
  assert.equal(row.cols, 300);
  const used = row.used;
  assert.ok(used >= 282, `decoded ${used} cells`);
  assert.deepEqual([...row.cells.subarray(0, used * 3)], [...line._data.subarray(0, used * 3)]);
  for (let x = used; x < 300; x++) assert.deepEqual([...line._data.subarray(x * 3, x * 3 + 3)], [1 << 22, 0, 0], `cell ${x} is an empty default cell`);
  t.dispose();
});
