// State outside the cells that a restart used to get wrong, each fed to a
// real session (a program that writes back every byte it reads, so the
// reference is exactly what was sent), carried through `tend server restart`
// and held against a reference xterm fed the same bytes, with the
// continuation that shows the difference on screen:
// * SGR 4:3, DECRC, then an OSC 8 link: the pen keeps the curly style with
//   its underline flag off. The restored pen had the flag on, so after
//   DECSC, SGR 0, DECRC the program's next plain text came out underlined.
// * DECSC in the pending-wrap column (past the last one): it came back one
//   column to the left, which shows once the window is wider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless, { type Terminal } from '@xterm/headless';
import { diffTerminals } from '../support/terminal-diff.js';
import { terminalFromSnapshot } from '../support/terminal-from-snapshot.js';
import { startTestServer, waitFor, type TestServer } from './harness.js';
import { serverScreen } from './reference.js';

const SCROLLBACK_ROWS = 100;
const READY = 'ready';

/** A session whose program writes back every byte typed into it, untouched, and the reference terminal beside it. */
class EchoSession {
  private sent = 0;
  readonly reference: Terminal;

  private constructor(private readonly t: TestServer, readonly target: string, cols: number, rows: number) {
    this.reference = new xtermHeadless.Terminal({ cols, rows, scrollback: SCROLLBACK_ROWS, allowProposedApi: true });
  }

  static async start(t: TestServer, name: string, cols: number, rows: number): Promise<EchoSession> {
    // Typing is sent only once the terminal is raw (no echo, no line editing): the program says so.
    const created = await t.cli(['new', '--name', name, '--size', `${cols}x${rows}`, '--', 'sh', '-c', `stty raw -echo && printf ${READY} && exec cat`]);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();
    const session = new EchoSession(t, `:${name}`, cols, rows);
    session.sent = READY.length;
    await new Promise<void>((resolve) => session.reference.write(READY, resolve));
    await session.waitForScreen();
    await session.write('\x1b[H\x1b[2J');
    return session;
  }

  /** Types `bytes` (the program prints them) and waits until the server's screen has every one. */
  async write(bytes: string): Promise<void> {
    const data = Buffer.from(bytes, 'utf8');
    const res = await this.t.api('POST', `/v1/sessions/${this.target}/input`, { base64: data.toString('base64') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    this.sent += data.length;
    await new Promise<void>((resolve) => this.reference.write(data, resolve));
    await this.waitForScreen();
  }

  private async waitForScreen(): Promise<void> {
    await waitFor(`${this.sent} bytes on ${this.target}'s screen`, async () => {
      const s = await this.t.api<{ offset: number; unparsedBytes: number }>('GET', `/v1/sessions/${this.target}`);
      return s.status === 200 && s.body.offset - s.body.unparsedBytes === this.sent;
    });
  }

  async resize(cols: number, rows: number): Promise<void> {
    const res = await this.t.api('POST', `/v1/sessions/${this.target}/resize`, { cols, rows });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    this.reference.resize(cols, rows);
    await waitFor(`${this.target} at ${cols}x${rows}`, async () => (await serverScreen(this.t, this.target, 0)).cols === cols);
  }

  /** The server's screen, as a viewer rebuilds it from a snapshot; the caller disposes it. */
  async screen(): Promise<Terminal> {
    return terminalFromSnapshot(await serverScreen(this.t, this.target, SCROLLBACK_ROWS));
  }

  async differences(): Promise<string[]> {
    const screen = await this.screen();
    try {
      return diffTerminals(this.reference, screen);
    } finally {
      screen.dispose();
    }
  }
}

test('a curly underline taken back by DECRC and a cursor saved past the last column come back from a restart as they were', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const pen = await EchoSession.start(t, 'pen', 40, 6);
    // Save with a plain pen, underline curly, restore (fg/bg plain again, the curly record kept), then a link.
    await pen.write('ab\x1b7\x1b[4:3mcurly\x1b8\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\ after');
    const saved = await EchoSession.start(t, 'saved', 40, 6);
    await saved.write('\r\n\x1b[40Gz\x1b7\r\nbelow');
    for (const s of [pen, saved]) assert.deepEqual(await s.differences(), [], `${s.target} before the restart`);

    const restarted = await t.cli(['server', 'restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    for (const s of [pen, saved]) assert.deepEqual(await s.differences(), [], `${s.target} after the restart`);

    // A program saves, resets and restores, and prints: plain, as in the reference.
    await pen.write('\r\n\x1b7\x1b[0m\x1b8plain');
    const penScreen = await pen.screen();
    try {
      const row = penScreen.buffer.active.getLine(penScreen.buffer.active.baseY + 1)!;
      assert.equal(row.translateToString(true), 'plain');
      assert.equal(row.getCell(0)!.isUnderline(), 0, 'text after DECSC, SGR 0, DECRC is not underlined');
    } finally {
      penScreen.dispose();
    }
    assert.deepEqual(await pen.differences(), []);

    // Wider, the saved column is a real one: DECRC goes back to it.
    await saved.resize(50, 6);
    await saved.write('\x1b8X');
    const savedScreen = await saved.screen();
    try {
      assert.equal(savedScreen.buffer.active.getLine(savedScreen.buffer.active.baseY + 1)!.translateToString(true), `${' '.repeat(39)}zX`);
    } finally {
      savedScreen.dispose();
    }
    assert.deepEqual(await saved.differences(), []);
  } finally {
    await t.dispose();
  }
});
