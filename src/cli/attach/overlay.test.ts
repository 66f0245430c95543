import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { drawOverlay, eraseOverlay, fitColumns } from './overlay.js';

const { Terminal } = xtermHeadless;

function rowsOf(terminal: InstanceType<typeof Terminal>): string[] {
  const b = terminal.buffer.active;
  return Array.from({ length: terminal.rows }, (_, y) => b.getLine(b.baseY + y)!.translateToString(true));
}

const write = (t: InstanceType<typeof Terminal>, s: string) => new Promise<void>((resolve) => t.write(s, resolve));

describe('overlay', () => {
  test('fitColumns cuts wide characters by the columns they take and pads to the width', () => {
    assert.equal(fitColumns('abc', 5), 'abc  ');
    assert.equal(fitColumns('한글한글', 5), '한글 ');
    assert.equal(fitColumns('a\x1bb', 3), 'ab ');
  });

  test('draws over the bottom rows without scrolling and puts the cursor back; erasing blanks them', async () => {
    const t = new Terminal({ cols: 20, rows: 5, scrollback: 10, allowProposedApi: true });
    await write(t, 'one\r\ntwo\r\nthree\r\nfour\r\nfive');
    await write(t, drawOverlay([{ text: 'a line far longer than twenty columns' }, { text: '한글 넓은 글자 줄입니다 정말' }], { cols: 20, rows: 5 }));
    const rows = rowsOf(t);
    assert.deepEqual(rows.slice(0, 3), ['one', 'two', 'three']);
    assert.equal(rows[3], 'a line far longer t');
    assert.equal(t.buffer.active.baseY, 0, 'nothing scrolled into the history');
    assert.deepEqual([t.buffer.active.cursorX, t.buffer.active.cursorY], [4, 4]);
    await write(t, eraseOverlay(2, { cols: 20, rows: 5 }));
    assert.deepEqual(rowsOf(t), ['one', 'two', 'three', '', '']);
    t.dispose();
  });
});
