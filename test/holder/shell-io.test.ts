import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { HOLDER_TEST_TIMEOUT_MS, INTERACTIVE_BASH, RecordingController, startHolder } from './holder-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { createHash } from 'node:crypto';

describe('input in, output out through a real shell', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a command typed into bash comes back as OUTPUT frames carrying its result', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: INTERACTIVE_BASH });
    const ctl = await RecordingController.start(scope, h.socketPath);
    // The typed text is echoed as "6*7"; only the shell's answer contains 42.
    ctl.conn.input('echo tend-$((6*7))-ok\r');
    await ctl.waitForText('tend-42-ok\r\n');
    assert.ok(ctl.replayEnded, 'the stream starts with a replay END');
    assert.equal(ctl.startOffset, 0);
    const state = await ctl.conn.state();
    assert.equal(state.offset, ctl.endOffset, 'the holder counted exactly the bytes streamed to us');
    assert.ok(state.youLease && state.leased);
  });

  test('input in several frames arrives whole and in order', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    // cat in canonical mode echoes each line, then prints it: we look for the printed copy twice.
    const line = 'ab한글cd€'.repeat(20);
    for (const ch of line) ctl.conn.input(ch);
    ctl.conn.input('\r');
    const text = await ctl.waitForText(`${line}\r\n${line}\r\n`);
    assert.ok(text.includes(line));
  });

  test('a RESIZE is seen by stty size in the child and reported in STATE', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: INTERACTIVE_BASH, cols: 80, rows: 24 });
    const ctl = await RecordingController.start(scope, h.socketPath);
    ctl.conn.input('stty size\r');
    await ctl.waitForText('24 80\r\n');
    ctl.conn.resize(133, 41);
    await waitFor(async () => {
      const s = await ctl.conn.state();
      return s.cols === 133 && s.rows === 41;
    }, { what: 'STATE to report 133x41' });
    const mark = ctl.received;
    ctl.conn.input('stty size\r');
    await waitFor(() => ctl.textSince(mark).includes('41 133\r\n'), { what: 'stty to print 41 133' });
  });

  test('300 KB of INPUT, chunked into 64 KiB frames, reaches a raw-mode program byte for byte', async (t) => {
    const scope = useTestScope(t);
    const INPUT_BYTES = 300_000;
    // Raw mode, no echo: the line discipline passes every byte through unchanged.
    const h = await startHolder(scope, { argv: ['sh', '-c', `stty raw -echo; echo RAW-READY; head -c ${INPUT_BYTES} | sha256sum`] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    await ctl.waitForText('RAW-READY');
    const input = new Uint8Array(INPUT_BYTES);
    for (let i = 0; i < INPUT_BYTES; i++) input[i] = 32 + ((i * 31 + (i >> 8)) % 95);
    ctl.conn.input(input);
    const digest = createHash('sha256').update(input).digest('hex');
    await ctl.waitForText(digest, 60_000);
  });

  test('PING is answered with a round-trip time', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    const rtts = await Promise.all([ctl.conn.ping(), ctl.conn.ping(), ctl.conn.ping()]);
    for (const ms of rtts) assert.ok(Number.isFinite(ms) && ms >= 0);
  });
});
