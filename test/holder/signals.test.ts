import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { readFileSync } from 'node:fs';

/** The command name of pid, or null once it is gone. */
function commandOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}
import { HOLDER_TEST_TIMEOUT_MS, INTERACTIVE_BASH, RecordingController, nodeProgram, startHolder } from './holder-fixture.js';

describe('REDRAW and SIGNAL reach the foreground process group', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('REDRAW sends SIGWINCH, so a full-screen program redraws at the same size', async (t) => {
    const scope = useTestScope(t);
    const program = nodeProgram(`
      let n = 0;
      process.on('SIGWINCH', () => process.stdout.write('\\x1b[2J\\x1b[HREDRAWN-' + (++n) + '\\n'));
      process.stdout.write('\\x1b[?1049hREADY\\n');
      setInterval(() => {}, 1 << 30);
    `);
    const h = await startHolder(scope, { argv: program });
    const ctl = await RecordingController.start(scope, h.socketPath);
    await ctl.waitForText('READY');
    ctl.conn.redraw();
    await ctl.waitForText('REDRAWN-1');
    ctl.conn.redraw();
    await ctl.waitForText('REDRAWN-2');
    const state = await ctl.conn.state();
    assert.deepEqual([state.cols, state.rows], [80, 24]);
  });

  test('SIGINT to a shell running sleep interrupts the sleep and the prompt comes back', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: INTERACTIVE_BASH });
    const ctl = await RecordingController.start(scope, h.socketPath);
    ctl.conn.input('echo ready-$((1+1))\r');
    await ctl.waitForText('ready-2\r\n');
    const shellGroup = (await ctl.conn.state()).fgPgid;
    assert.equal(shellGroup, h.childPid, 'the shell leads the foreground group at its prompt');

    ctl.conn.input('sleep 300\r');
    // Wait for the exec, not just the fork: between the two the child still
    // has the shell's SIGINT handler, and the signal would be swallowed.
    const sleeping = await waitFor(async () => {
      const s = await ctl.conn.state();
      return s.fgPgid !== shellGroup && s.fgPgid !== 0 && commandOf(s.fgPgid) === 'sleep' ? s : null;
    }, { what: 'sleep to run as the foreground process group' });
    ctl.conn.signal(2);
    await waitFor(async () => (await ctl.conn.state()).fgPgid === shellGroup, {
      what: `the shell to take the terminal back from ${sleeping.fgPgid}`,
    });
    const mark = ctl.received;
    ctl.conn.input('echo back-$((2+3))\r');
    await waitFor(() => ctl.textSince(mark).includes('back-5\r\n'), { what: 'the shell to answer after the interrupt' });
  });

  test('SIGTERM by SIGNAL ends a program that does not trap it, and EXIT reports the signal', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sleep', '300'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    ctl.conn.signal(15);
    assert.deepEqual(await ctl.waitForExit(), { code: -1, signal: 15 });
  });
});
