import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { isProcessAlive } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';
import { HOLDER_TEST_TIMEOUT_MS, INTERACTIVE_BASH, RecordingController, testEnv } from './holder-fixture.js';

const holderClientUrl = new URL('../../src/holder-client/index.js', import.meta.url).href;

describe('a holder outlives whoever started it', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('SIGKILL to the starter and its whole process group leaves holder and shell running, and a new controller drives the shell', async (t) => {
    const scope = useTestScope(t);
    const dir = scope.tempDir('tend-h-');
    const socketPath = join(dir, 'h.sock');
    // A stand-in server: a Node process in its own process group that starts the
    // holder, prints what it got, and stays alive holding its end of everything.
    const starterScript = `
      import { spawnHolder } from ${JSON.stringify(holderClientUrl)};
      const r = await spawnHolder(${JSON.stringify({ socketPath, cols: 80, rows: 24, cwd: dir, env: testEnv(), argv: INTERACTIVE_BASH })});
      process.stdout.write(JSON.stringify(r) + '\\n');
      setInterval(() => {}, 1 << 30);
    `;
    const starter = spawn(process.execPath, ['--input-type=module', '-e', starterScript], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    scope.trackPid(starter.pid!);
    let out = '';
    starter.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    const started = await waitFor(() => (out.includes('\n') ? (JSON.parse(out) as { holderPid: number; childPid: number }) : null), {
      what: 'the starter to report the holder',
    });
    scope.trackPid(started.holderPid);
    scope.trackPid(started.childPid);

    const exited = new Promise((resolve) => starter.once('exit', resolve));
    process.kill(-starter.pid!, 'SIGKILL');
    await exited;
    assert.equal(isProcessAlive(starter.pid!), false);
    assert.ok(isProcessAlive(started.holderPid), 'holder survived');
    assert.ok(isProcessAlive(started.childPid), 'shell survived');

    const ctl = await RecordingController.start(scope, socketPath);
    assert.equal(ctl.conn.lastState.childPid, started.childPid);
    ctl.conn.input('echo alive-$((40+2))\r');
    await ctl.waitForText('alive-42\r\n');
  });
});
