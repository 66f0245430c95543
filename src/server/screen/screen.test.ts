import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from './screen.js';
import { diffTerminals } from '../../../test/support/terminal-diff.js';

const decoder = new TextDecoder();

function withScreen(options: { cols?: number; rows?: number } = {}): Screen {
  return new Screen({ cols: options.cols ?? 80, rows: options.rows ?? 24 });
}

describe('Screen replies', { timeout: 30_000 }, () => {
  // OSC 11 (background colour query) is answered by a terminal that has a palette; the headless
  // one has none and never answers, so only "replayed gives nothing" can be shown for it.
  test('a replayed OSC 11 colour query is not answered', async () => {
    const screen = withScreen();
    const replies: string[] = [];
    screen.onReply((bytes) => replies.push(decoder.decode(bytes)));
    screen.write('\x1b]11;?\x1b\\', { live: false });
    await screen.flush();
    assert.deepEqual(replies, []);
    screen.dispose();
  });

  for (const [name, query] of [['DA (CSI c)', '\x1b[c'], ['CPR (CSI 6 n)', '\x1b[6n'], ['DECRQM (CSI ? 2004 $ p)', '\x1b[?2004$p']] as const) {
    test(`a replayed ${name} is not answered, a live one exactly once`, async () => {
      const screen = withScreen();
      const replies: string[] = [];
      screen.onReply((bytes) => replies.push(decoder.decode(bytes)));
      screen.write(`old output ${query} more`, { live: false });
      await screen.flush();
      assert.deepEqual(replies, []);
      screen.write(`new output ${query}`, { live: true });
      await screen.flush();
      assert.equal(replies.length, 1, `replies: ${JSON.stringify(replies)}`);
      assert.match(replies[0] ?? '', /^\x1b/);
      screen.dispose();
    });
  }

  test('replayed and live chunks interleaved: only the live ones answer', async () => {
    const screen = withScreen();
    const replies: string[] = [];
    screen.onReply((bytes) => replies.push(decoder.decode(bytes)));
    for (let i = 0; i < 10; i++) screen.write('\x1b[6n', { live: i % 2 === 0 });
    await screen.flush();
    assert.equal(replies.length, 5);
    screen.dispose();
  });
});

describe('Screen events and state', { timeout: 30_000 }, () => {
  test('title from OSC 0 and OSC 2, cwd from OSC 7 and OSC 633, bell', async () => {
    const screen = withScreen();
    const titles: string[] = [];
    const cwds: string[] = [];
    let bells = 0;
    screen.onTitle((t) => titles.push(t));
    screen.onCwd((c) => cwds.push(c));
    screen.onBell(() => bells++);
    screen.write('\x1b]0;first\x07\x1b]2;second\x1b\\\x1b]7;file://host/home/me/my%20dir\x07\x07', { live: true });
    screen.write('\x1b]633;P;Cwd=/srv/a\\x3bb\x07', { live: true });
    await screen.flush();
    assert.deepEqual(titles, ['first', 'second']);
    assert.equal(screen.title, 'second');
    assert.deepEqual(cwds, ['/home/me/my dir', '/srv/a;b']);
    assert.equal(screen.cwd, '/srv/a;b');
    assert.equal(bells, 1);
    screen.dispose();
  });

  test('modes and cursor reflect what the program set', async () => {
    const screen = withScreen();
    screen.write('\x1b[?1049h\x1b[?2004h\x1b[?1003h\x1b[?1006h\x1b[?1h\x1b[?25l\x1b[5 q\x1b[?1004h\x1b[4h\x1b[?7l\x1b[3;4H', { live: false });
    await screen.flush();
    const m = screen.modes;
    assert.equal(m.alternateScreen, true);
    assert.equal(m.bracketedPaste, true);
    assert.equal(m.mouseTracking, 'any');
    assert.equal(m.mouseEncoding, 'sgr');
    assert.equal(m.applicationCursorKeys, true);
    assert.equal(m.cursorVisible, false);
    assert.equal(m.cursorStyle, 'bar');
    assert.equal(m.cursorBlink, true);
    assert.equal(m.focusReporting, true);
    assert.equal(m.insertMode, true);
    assert.equal(m.autowrap, false);
    assert.deepEqual(screen.cursor, { x: 3, y: 2, visible: false });
    screen.dispose();
  });

  test('text: plain, with scrollback, joined wraps, ANSI', async () => {
    const screen = withScreen({ cols: 10, rows: 3 });
    screen.write('one\r\ntwo\r\n0123456789abc\r\n\x1b[31mred\x1b[0m  ', { live: false });
    await screen.flush();
    assert.equal(screen.text(), '0123456789\nabc\nred');
    assert.equal(screen.text({ scrollbackRows: 5 }), 'one\ntwo\n0123456789\nabc\nred');
    assert.equal(screen.text({ scrollbackRows: 5, joinWrapped: true }), 'one\ntwo\n0123456789abc\nred');
    assert.equal(screen.text({ ansi: true, joinWrapped: false }).split('\n')[2], '\x1b[0;31mred\x1b[0m');
    // ANSI text joins wrapped rows unless told not to (screen-text.ts says why).
    assert.deepEqual(screen.text({ ansi: true }).split('\n'), ['0123456789abc', '\x1b[0;31mred\x1b[0m']);
    screen.dispose();
  });

  test('ED 1 at the bottom-right of a screen without scrollback does not throw (xterm bug guard)', async () => {
    const screen = withScreen({ cols: 10, rows: 5 });
    screen.write('aaaa\r\nbbbb\x1b[5;10H\x1b[1J', { live: false });
    await screen.flush();
    assert.equal(screen.text(), '');
    assert.deepEqual(screen.cursor, { x: 9, y: 4, visible: true });
    screen.dispose();
  });
});

describe('Screen snapshots', { timeout: 60_000 }, () => {
  test('fromSnapshot rebuilds the screen, title and cwd', async () => {
    const screen = withScreen();
    screen.write('\x1b]2;t\x07\x1b]7;file:///tmp/x\x07\x1b[1;33mhello\r\n\x1b[?1049hfull screen', { live: false });
    await screen.flush();
    const copy = Screen.fromSnapshot(screen.snapshot(), { cols: 1, rows: 1 });
    await copy.flush();
    assert.deepEqual(diffTerminals(screen.terminal, copy.terminal, { titles: [screen.title, copy.title] }), []);
    assert.equal(copy.cwd, '/tmp/x');
    screen.dispose();
    copy.dispose();
  });

  test('snapshotAsync covers exactly what was written before the call, holds later writes, then applies them', async () => {
    const screen = withScreen({ cols: 80, rows: 24 });
    let text = '';
    for (let i = 0; i < 3000; i++) text += `\x1b[3${i % 8}mline ${i} ${'x'.repeat(i % 70)}\r\n`;
    screen.write(text, { live: false });
    const pending = screen.snapshotAsync({ sliceMs: 2 });
    screen.write('AFTER', { live: false });
    const snapshot = await pending;
    await screen.flush();
    assert.ok(!snapshot.data.includes('AFTER'));
    assert.equal(snapshot.scrollbackRows, 3000 - 23);
    assert.ok(screen.text().includes('AFTER'));
    const copy = Screen.fromSnapshot(snapshot, { cols: 80, rows: 24 });
    await copy.flush();
    copy.write('AFTER', { live: false });
    await copy.flush();
    assert.deepEqual(diffTerminals(screen.terminal, copy.terminal), []);
    screen.dispose();
    copy.dispose();
  });

  test('dispose during snapshotAsync rejects it and releases the screen', async () => {
    const screen = withScreen();
    screen.write('x\r\n'.repeat(5000), { live: false });
    const pending = screen.snapshotAsync({ sliceMs: 0 });
    setImmediate(() => screen.dispose());
    await assert.rejects(pending, /disposed/);
  });
});
