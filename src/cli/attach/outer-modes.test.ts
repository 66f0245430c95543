import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { AltScreenTracker, assertInputModes, leaveSequence, paintSnapshot } from './outer-modes.js';
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
    await write(term, paintSnapshot({ data: 'new screen', modes }, { outerRows: 5, inAltScreen: false, first: true }));
    const buffer = term.buffer.active;
    assert.equal(buffer.getLine(buffer.baseY)!.translateToString(true), 'new screen');
    // The user's own screen went up into the scrollback, not away.
    assert.equal(buffer.getLine(0)!.translateToString(true).trimEnd(), 'old prompt$');
    assert.equal(term.modes.bracketedPasteMode, true);
    assert.equal(term.modes.applicationCursorKeysMode, true);
    assert.equal(term.modes.mouseTrackingMode, 'drag');
    await write(term, leaveSequence({ inAltScreen: false }));
    assert.equal(term.modes.bracketedPasteMode, false);
    assert.equal(term.modes.applicationCursorKeysMode, false);
    assert.equal(term.modes.mouseTrackingMode, 'none');
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
