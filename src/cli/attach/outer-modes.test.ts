import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { AltScreenTracker, assertInputModes, leaveSequence, paintSnapshot, statusLine } from './outer-modes.js';
import type { ScreenModes } from '../../protocol/viewer-frames.js';

const modes: ScreenModes = {
  cursorX: 0, cursorY: 0, cursorHidden: true, altScreen: false, applicationCursorKeys: true, applicationKeypad: false,
  bracketedPaste: true, sendFocus: false, originMode: false, insertMode: false, wraparound: true, mouseTracking: 'drag', mouseEncoding: 'sgr',
};

function write(term: InstanceType<typeof xtermHeadless.Terminal>, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

describe('outer terminal modes', () => {
  test('a snapshot paint sets the modes the snapshot says, and leaving clears them', async () => {
    const term = new xtermHeadless.Terminal({ cols: 20, rows: 5, allowProposedApi: true });
    await write(term, 'old prompt$ ');
    await write(term, paintSnapshot({ data: 'new screen', modes }, { outerRows: 5, outerCols: 20, inAltScreen: false, first: true }));
    const buffer = term.buffer.active;
    assert.equal(buffer.getLine(buffer.baseY)!.translateToString(true), 'new screen');
    // The user's own screen went up into the scrollback, not away.
    assert.equal(buffer.getLine(0)!.translateToString(true).trimEnd(), 'old prompt$');
    assert.equal(term.modes.bracketedPasteMode, true);
    assert.equal(term.modes.applicationCursorKeysMode, true);
    assert.equal(term.modes.mouseTrackingMode, 'drag');
    await write(term, leaveSequence({ inAltScreen: false, cols: 20, rows: 5 }));
    assert.equal(term.modes.bracketedPasteMode, false);
    assert.equal(term.modes.applicationCursorKeysMode, false);
    assert.equal(term.modes.mouseTrackingMode, 'none');
    term.dispose();
  });

  test('a repaint resets pen, charsets, margins, origin, autowrap and insert mode itself, not by DECSTR', async () => {
    const term = new xtermHeadless.Terminal({ cols: 20, rows: 6, allowProposedApi: true });
    // What a program may leave behind: a coloured underlined pen, DEC line drawing, a scroll region, origin mode, no autowrap, insert mode.
    await write(term, 'one\r\ntwo\r\n\x1b[1;31;4m\x1b(0\x1b[2;4r\x1b[?6h\x1b[?7l\x1b[4h');
    // As a terminal that ignores DECSTR (tmux 3.3a for these) would take it.
    const paint = paintSnapshot({ data: 'abc\r\nlmn', modes: { ...modes, cursorHidden: false } }, { outerRows: 6, outerCols: 20, inAltScreen: false, first: false }).replace('\x1b[!p', '');
    await write(term, paint);
    const buffer = term.buffer.active;
    assert.equal(buffer.getLine(buffer.baseY)!.translateToString(true), 'abc', 'line drawing would show abc as other glyphs');
    assert.equal(buffer.getLine(buffer.baseY + 1)!.translateToString(true), 'lmn', 'drawn below the first row: no origin mode, no region');
    assert.equal(buffer.getLine(buffer.baseY + 2)!.translateToString(true), '', 'the old screen is gone');
    const cell = buffer.getLine(buffer.baseY)!.getCell(0)!;
    assert.equal(cell.isBold(), 0);
    assert.equal(cell.isUnderline(), 0);
    assert.equal(cell.getFgColorMode(), 0, 'the default pen');
    assert.equal(term.modes.insertMode, false);
    assert.equal(term.modes.wraparoundMode, true);
    assert.equal(buffer.length, 6, 'a repaint pushes nothing into the scrollback');
    term.dispose();
  });

  test('leaving resets the scroll region and pen and keeps the cursor on its row', async () => {
    const term = new xtermHeadless.Terminal({ cols: 20, rows: 6, allowProposedApi: true });
    await write(term, 'a\r\nb\r\nc\x1b[2;3r\x1b[3;1H\x1b[7;32m\x1b(0');
    await write(term, leaveSequence({ inAltScreen: false, cols: 20, rows: 6 }).replace('\x1b[!p', '') + 'xyz\r\nq\r\nq\r\nq');
    const buffer = term.buffer.active;
    const lines = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
    assert.deepEqual(lines.slice(0, 6), ['a', 'b', 'c', 'xyz', 'q', 'q'], 'below the session, in ASCII, and the region no longer holds the scroll');
    assert.equal(buffer.getLine(3)!.getCell(0)!.isInverse(), 0);
    term.dispose();
  });

  test('the status line is drawn in ASCII and puts the program\'s pen back', async () => {
    const term = new xtermHeadless.Terminal({ cols: 30, rows: 4, allowProposedApi: true });
    await write(term, '\x1b(0\x1b[31m');
    await write(term, statusLine('tend: reconnecting', { cols: 30, rows: 4 }) + 'q');
    const buffer = term.buffer.active;
    assert.equal(buffer.getLine(3)!.translateToString(true), 'tend: reconnecting');
    assert.equal(buffer.getLine(0)!.translateToString(true), '─', 'the program\'s charset is back for its next byte');
    assert.equal(buffer.getLine(0)!.getCell(0)!.getFgColor(), 1, 'and its pen');
    term.dispose();
  });

  test('assertInputModes turns off what the snapshot does not have', () => {
    const none = assertInputModes({ ...modes, mouseTracking: 'none', bracketedPaste: false, cursorHidden: false });
    assert.doesNotMatch(none, /\x1b\[\?100[023]h|\x1b\[\?2004h/);
    assert.match(none, /\x1b\[\?25h$/);
  });

  test('the alternate screen tracker follows 1049/1047/47 even when split across reads', () => {
    const t = new AltScreenTracker();
    t.feed(Buffer.from('text \x1b[?10'));
    assert.equal(t.active, false);
    t.feed(Buffer.from('49h more'));
    assert.equal(t.active, true);
    t.feed(Buffer.from('\x1b[?25;47l'));
    assert.equal(t.active, false);
    t.feed(Buffer.from('\x1b[1049h')); // not private: not a mode switch
    assert.equal(t.active, false);
  });
});
