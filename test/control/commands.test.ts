// `tend commands`, `tend output` and `tend send --keys` end to end, and the
// index surviving a server restart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, type CommandRow, type ControlServer, withServer } from './control-server.js';

async function commands(s: ControlServer, target: string): Promise<CommandRow[]> {
  const r = await s.cli(['commands', target, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as CommandRow[];
}

describe('tend commands and tend output', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('list what ran (number, line, exit code, times, cwd) and print any one output exactly', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      assert.equal((await s.cli(['await', ':b', '--', `cd ${s.shellHome} && echo first`])).code, 0);
      assert.equal((await s.cli(['await', ':b', '--', 'printf "a b\\n  c\\n"; false'])).code, 1);
      const list = await commands(s, ':b');
      assert.deepEqual(list.map((c) => [c.number, c.commandLine, c.exitCode, c.running]), [
        [1, `cd ${s.shellHome} && echo first`, 0, false],
        [2, 'printf "a b\\n  c\\n"; false', 1, false],
      ]);
      assert.equal(list[1]!.cwd, s.shellHome, 'the cwd OSC 7 reported before the command');
      assert.ok(list.every((c) => c.endedAt !== null && c.endedAt >= c.startedAt));

      const table = await s.cli(['commands', ':b']);
      assert.match(table.stdout, /^#\s+EXIT\s+STARTED\s+TOOK\s+CWD\s+COMMAND\n1\s+0\s/);

      const one = await s.cli(['output', ':b', '--cmd', '1']);
      assert.deepEqual([one.code, one.stdout], [0, 'first\n']);
      const last = await s.cli(['output', ':b', '--last']);
      assert.deepEqual([last.code, last.stdout], [0, 'a b\n  c\n']);
      const json = JSON.parse((await s.cli(['output', ':b', '--json'])).stdout);
      assert.deepEqual(json, { number: 2, commandLine: 'printf "a b\\n  c\\n"; false', text: 'a b\n  c\n', complete: true, exitCode: 1 });
    }));

  test('a running command is listed as running and its output so far is readable; --keys C-c ends it', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      assert.equal((await s.cli(['send', ':b', '--enter', 'echo started; sleep 600'])).code, 0);
      await waitFor('the running command', async () => (await commands(s, ':b'))[0]?.running === true);
      const sofar = await s.cli(['output', ':b', '--cmd', '1']);
      assert.equal(sofar.stdout, 'started\n');
      assert.match(sofar.stderr, /still running/);
      assert.equal((await s.cli(['send', ':b', '--keys', 'C-c'])).code, 0);
      const ended = await waitFor('the interrupted command', async () => {
        const c = (await commands(s, ':b'))[0];
        return c && !c.running ? c : null;
      });
      assert.equal(ended.exitCode, 130, 'bash reports 128 + SIGINT');
    }));

  test('--keys: named keys reach the program; a bad name is an error and sends nothing', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      // Type a line, take it back with BSpace, recall history with Up: what runs proves each key arrived.
      assert.equal((await s.cli(['await', ':b', '--', 'echo recalled'])).code, 0);
      const bad = await s.cli(['send', ':b', 'echo sent-anyway', '--keys', 'Enter,Bogus']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /"Bogus" is not a key name; known keys: /);
      assert.equal((await s.cli(['send', ':b', 'echo typedX', '--keys', 'BSpace,C-u,Up', '--enter'])).code, 0);
      const second = await waitFor('the recalled command', async () => (await commands(s, ':b'))[1]);
      assert.equal(second.commandLine, 'echo recalled');
      assert.ok(!(await s.screen(':b')).includes('sent-anyway'), 'nothing of the refused send was typed');
    }));

  test('unknown command numbers and output that left the scrollback are clear errors', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      assert.equal((await s.cli(['await', ':b', '--', 'seq 1 2000'])).code, 0);
      assert.equal((await s.cli(['await', ':b', '--', 'echo recent'])).code, 0);
      const gone = await s.cli(['output', ':b', '--cmd', '1']);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /^tend: command 1's output has left the scrollback/);
      assert.equal((await s.api('GET', '/v1/sessions/%3Ab/output?cmd=1')).status, 410);
      assert.equal((await s.cli(['output', ':b', '--cmd', '2'])).stdout, 'recent\n');
      const missing = await s.cli(['output', ':b', '--cmd', '9']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /has no command 9; it has commands 1-2/);
      assert.equal((await s.cli(['output', ':b', '--cmd', 'two'])).code, 2);
      assert.equal((await s.api('GET', '/v1/sessions/%3Ab/output?cmd=two')).status, 400);
    }, { TEND_SCROLLBACK_ROWS: '300' }));

  test('the index survives a server restart: same list, same outputs, numbering goes on', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      assert.equal((await s.cli(['await', ':b', '--', 'echo before-restart'])).code, 0);
      assert.equal((await s.cli(['await', ':b', '--', 'ls /nonexistent-dir 2>/dev/null'])).code, 2);
      const before = await commands(s, ':b');
      assert.equal((await s.cli(['server', 'stop'])).code, 0);
      assert.equal(s.serverPid(), null);
      const after = await commands(s, ':b'); // starts the next server
      assert.deepEqual(after, before);
      assert.equal((await s.cli(['output', ':b', '--cmd', '1'])).stdout, 'before-restart\n');
      const next = await s.cli(['await', ':b', '--json', '--', 'echo after-restart']);
      assert.equal(JSON.parse(next.stdout).command.number, 3);
      assert.equal((await s.cli(['output', ':b', '--cmd', '3'])).stdout, 'after-restart\n');
    }));
});
