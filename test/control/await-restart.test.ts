// `tend await` rides through a server restart and a server crash: the
// command keeps running in its holder, the await is kept in the store, and
// the CLI reconnects (starting the server) to the command's real result.
// A real server, real bash, the real CLI; the server is killed by its PID.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, type ControlServer, commandsOf, withServer } from './control-server.js';

/** A command that ends, with status 7, only once the test creates `gate`. */
function gatedCommand(gate: string, word: string): string {
  return `until [ -e ${gate} ]; do sleep 0.05; done; echo ${word}-$((6*7)); (exit 7)`;
}

async function runningBeforeGate(s: ControlServer, line: string): Promise<void> {
  await waitFor('the awaited command to run', async () => (await commandsOf(s, ':b')).some((c) => c.commandLine === line && c.running), 30_000);
}

async function assertTypedOnce(s: ControlServer, line: string): Promise<void> {
  const list = await commandsOf(s, ':b');
  assert.deepEqual(list.map((c) => [c.commandLine, c.exitCode]), [[line, 7]], 'the command ran once, and nothing else ran');
}

describe('tend await across a server restart', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('`tend server restart` while waiting: the CLI returns the exit code and output, typed once', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const gate = join(s.shellHome, 'gate-restart');
      const line = gatedCommand(gate, 'restarted');
      const waiting = s.cli(['await', ':b', '--', line], { timeoutMs: 90_000 });
      await runningBeforeGate(s, line);
      const oldPid = s.serverPid();

      const restarted = await s.cli(['server', 'restart']);
      assert.equal(restarted.code, 0, restarted.stderr);
      assert.notEqual(s.serverPid(), oldPid);
      writeFileSync(gate, '');

      const done = await waiting;
      assert.deepEqual([done.code, done.stdout, done.stderr], [7, 'restarted-42\n', '']);
      await assertTypedOnce(s, line);
    }));

  test('the server SIGKILLed by PID while waiting, the command ending with no server: the CLI starts one and returns the result', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const gate = join(s.shellHome, 'gate-kill');
      const line = gatedCommand(gate, 'killed');
      const waiting = s.cli(['await', ':b', '--json', '--', line], { timeoutMs: 90_000 });
      await runningBeforeGate(s, line);

      const pid = s.serverPid();
      assert.notEqual(pid, null);
      process.kill(pid!, 'SIGKILL');
      writeFileSync(gate, ''); // the command ends whether or not a server is there to see it
      await waitFor('the server to die', () => !isAlive(pid!));

      const done = await waiting;
      assert.equal(done.code, 7, done.stderr);
      const reply = JSON.parse(done.stdout);
      assert.deepEqual([reply.status, reply.exitCode, reply.output, reply.command.commandLine], ['done', 7, 'killed-42\n', line]);
      assert.notEqual(s.serverPid(), pid, 'the CLI started a new server');
      await assertTypedOnce(s, line);

      // The result stays collectable at its location from the new server.
      const again = await s.cli(['await', '--resume', reply.id]);
      assert.deepEqual([again.code, again.stdout], [7, 'killed-42\n']);
    }));

  test('an await that timed out before a restart is collected with --resume after it', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const gate = join(s.shellHome, 'gate-resume');
      const line = gatedCommand(gate, 'resumed');
      const first = await s.cli(['await', ':b', '--timeout', '0.5', '--', line]);
      assert.equal(first.code, 124, first.stderr);
      const id = first.stdout.trim();
      await runningBeforeGate(s, line);

      const restarted = await s.cli(['server', 'restart']);
      assert.equal(restarted.code, 0, restarted.stderr);
      const pending = await s.api('GET', `/v1/awaits/${id}`);
      assert.equal(pending.status, 202, JSON.stringify(pending.body));
      writeFileSync(gate, '');
      const resumed = await s.cli(['await', '--resume', id]);
      assert.deepEqual([resumed.code, resumed.stdout], [7, 'resumed-42\n']);
      await assertTypedOnce(s, line);
    }));
});
