import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { useTestScope } from '../support/test-scope.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import { isProcessAlive } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, socketExists, startHolder } from './holder-fixture.js';

describe('the child exits, the holder reports it and goes', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a normal exit is delivered as EXIT with its code and signal 0, after its last output, and STATE keeps it', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sh', '-c', 'echo bye; exit 3'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    assert.deepEqual(await ctl.waitForExit(), { code: 3, signal: 0 });
    assert.equal(ctl.text(), 'bye\r\n', 'every byte arrived before EXIT');
    const state = await ctl.conn.state();
    assert.ok(state.exited);
    assert.deepEqual([state.exitCode, state.exitSignal], [3, 0]);
    assert.ok(isProcessAlive(h.holderPid), 'the holder waits for KILL before it goes');
    assert.ok(socketExists(h.socketPath));
  });

  test('a child killed by a signal is EXIT code -1 with the signal number', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sh', '-c', 'kill -KILL $$'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    assert.deepEqual(await ctl.waitForExit(), { code: -1, signal: 9 });
  });

  test('a controller arriving after the exit gets the replay, then EXIT', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sh', '-c', 'echo early; exit 7'] });
    const watcher = scope.own(await HolderConnection.connect(h.socketPath));
    await waitFor(async () => (await watcher.state()).exited, { what: 'the child to exit' });
    const ctl = await RecordingController.start(scope, h.socketPath);
    assert.deepEqual(await ctl.waitForExit(), { code: 7, signal: 0 });
    assert.ok(ctl.replayEnded);
    assert.equal(ctl.text(), 'early\r\n');
  });

  test('KILL after the exit makes the holder exit and remove its socket', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['true'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    await ctl.waitForExit();
    ctl.conn.kill();
    await waitFor(() => !isProcessAlive(h.holderPid), { what: 'the holder to exit' });
    assert.equal(socketExists(h.socketPath), false);
    await waitFor(() => ctl.closed, { what: 'the connection to close' });
  });

  test('KILL on a live shell hangs it up, reports EXIT, and the holder exits removing its socket', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sleep', '300'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    ctl.conn.kill();
    const exit = await ctl.waitForExit();
    assert.equal(exit.code, -1);
    assert.ok(exit.signal === 1 || exit.signal === 9, `killed by SIGHUP or SIGKILL, got ${exit.signal}`);
    await waitFor(() => !isProcessAlive(h.holderPid) && !isProcessAlive(h.childPid), { what: 'holder and child to be gone' });
    assert.equal(socketExists(h.socketPath), false);
  });

  test('KILL on a program that ignores SIGHUP still ends it (SIGKILL after the grace)', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sh', '-c', "trap '' HUP; echo armed; while :; do sleep 1; done"] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    await ctl.waitForText('armed');
    ctl.conn.kill();
    const exit = await ctl.waitForExit(30_000);
    assert.deepEqual(exit, { code: -1, signal: 9 });
    await waitFor(() => !isProcessAlive(h.holderPid), { what: 'the holder to exit' });
  });

  test('with --exit-grace 1 the holder goes by itself a second after the exit, without KILL', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['true'], exitGraceSeconds: 1 });
    await waitFor(() => !isProcessAlive(h.holderPid) && !socketExists(h.socketPath), {
      what: 'the holder to exit after its grace',
      timeoutMs: 30_000,
    });
  });
});

describe('no byte is lost when the child exits at once', { timeout: HOLDER_TEST_TIMEOUT_MS * 2 }, () => {
  // seq's output is known exactly; the PTY adds \r before each \n.
  const COUNT = 30_000;
  const expected = Buffer.from(execFileSync('seq', ['1', String(COUNT)]).toString('latin1').replaceAll('\n', '\r\n'), 'latin1');

  test(`a program that writes ${expected.byteLength} bytes while a controller streams and exits at once: all arrive before EXIT, 20 runs out of 20`, async (t) => {
    const scope = useTestScope(t);
    const RUNS = 20;
    const PARALLEL = 4;
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < RUNS) {
        const run = next++;
        // The program waits for a line, so its output and exit happen while we stream live.
        const h = await startHolder(scope, { argv: ['sh', '-c', `read go; exec seq 1 ${COUNT}`] });
        const ctl = await RecordingController.start(scope, h.socketPath);
        await waitFor(() => ctl.replayEnded, { what: 'the replay END' });
        ctl.conn.input('\r');
        const exit = await ctl.waitForExit(60_000);
        // The typed \r is echoed as \r\n before the program's output.
        const got = ctl.bytes();
        if (exit.code !== 0) failures.push(`run ${run}: exit ${JSON.stringify(exit)}`);
        if (!got.subarray(0, 2).equals(Buffer.from('\r\n')) || !got.subarray(2).equals(expected)) {
          failures.push(`run ${run}: got ${got.byteLength - 2} of ${expected.byteLength} bytes`);
        }
        ctl.conn.kill();
        await waitFor(() => !isProcessAlive(h.holderPid), { what: `holder of run ${run} to exit` });
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    assert.deepEqual(failures, []);
  });
});
