// A line that leaves a command unfinished (an open quote, a `for … do`)
// puts bash and zsh at their continuation prompt (PS2). The integration marks
// it (633;F … 633;G), so the index knows the shell waits for the rest of a
// command rather than for a new one; the user's own PS2 text stays. fish has
// no PS2: its line editor keeps the unfinished line open, so no line reaches
// the shell and nothing needs marking.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { IntegratedShellSession, SHELL_TEST_TIMEOUT_MS, appendLines, findShell } from './integrated-shell.js';

/** What each shell shows at the continuation prompt after `echo "unclosed`, with the user's PS2 below. */
const USER_PS2 = { bash: 'more> ', zsh: 'more %_> ' } as const;
const SHOWN_PS2 = { bash: 'more> ', zsh: 'more dquote> ' } as const;

for (const shell of ['bash', 'zsh'] as const) {
  const shellPath = findShell(shell);
  const skip = shellPath === null ? `${shell} is not installed` : false;

  describe(`${shell}'s continuation prompt`, { timeout: SHELL_TEST_TIMEOUT_MS, skip }, () => {
    const start = async (t: Parameters<typeof useTestScope>[0]): Promise<IntegratedShellSession> => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      appendLines(join(home, shell === 'bash' ? '.bashrc' : '.zshrc'), `PS2='${USER_PS2[shell]}'`);
      return IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home });
    };
    const describeSession = (session: IntegratedShellSession) => () =>
      `screen: ${JSON.stringify(session.screenText())}; raw tail: ${JSON.stringify(session.raw.slice(-300))}`;

    test('an unclosed quote leaves the shell at its continuation prompt, not its prompt; the rest of the line ends it as one command', async (t) => {
      const session = await start(t);
      session.conn.input('echo "unclosed\r');
      await waitFor(() => session.index.atContinuation, { what: 'the continuation mark (633;F)', describe: describeSession(session) });
      assert.equal(session.index.atPrompt, false, 'the shell waits for the rest of a command, not for a new one');
      assert.equal(session.index.current(), undefined, 'no command runs');
      assert.ok(session.screenText().endsWith(SHOWN_PS2[shell]), `the user's PS2 is shown: ${JSON.stringify(session.screenText())}`);
      assert.equal(session.countMarks('633;F'), 1);
      assert.equal(session.countMarks('633;G'), 1);

      session.conn.input('tail"\r');
      const command = await waitFor(() => (session.index.last()?.endedAt != null ? session.index.last()! : null), {
        what: 'the end of the two-line command',
        describe: describeSession(session),
      });
      await session.waitForPrompt();
      assert.equal(command.number, 1);
      assert.equal(command.exitCode, 0);
      assert.equal(command.commandLine, 'echo "unclosed\ntail"');
      assert.deepEqual(session.index.output(1), { text: 'unclosed\ntail\n', complete: true });
      assert.equal(session.index.atContinuation, false);
    });

    test('C-c at the continuation prompt gives the command up: the shell is at its prompt again and nothing was recorded', async (t) => {
      const session = await start(t);
      session.conn.input('echo "unclosed\r');
      await waitFor(() => session.index.atContinuation, { what: 'the continuation mark', describe: describeSession(session) });
      session.conn.input('\x03');
      await waitFor(() => !session.index.atContinuation && session.index.atPrompt, { what: 'the prompt after C-c', describe: describeSession(session) });
      assert.equal(session.index.list().length, 0);
      const after = await session.run('echo after');
      assert.equal(after.number, 1);
      assert.deepEqual(session.index.output(1), { text: 'after\n', complete: true });
    });

    test('a for loop typed over three lines is one command with its end mark', async (t) => {
      const session = await start(t);
      await session.waitForPrompt();
      session.conn.input('for i in 1 2; do\r');
      await waitFor(() => session.index.atContinuation, { what: 'the continuation after do', describe: describeSession(session) });
      session.conn.input('echo n$i\r');
      await waitFor(() => session.countMarks('633;F') === 2, { what: 'the second continuation prompt', describe: describeSession(session) });
      assert.equal(session.index.atPrompt, false);
      session.conn.input('done\r');
      const command = await waitFor(() => (session.index.last()?.endedAt != null ? session.index.last()! : null), {
        what: 'the end of the loop',
        describe: describeSession(session),
      });
      await session.waitForPrompt();
      assert.equal(session.index.list().length, 1, 'one command');
      assert.equal(command.exitCode, 0);
      assert.deepEqual(session.index.output(1), { text: 'n1\nn2\n', complete: true });
      assert.equal(session.countMarks('133;C'), 1);
      assert.equal(session.countMarks('133;D'), 1);
    });
  });
}

const fishPath = findShell('fish');
describe("fish's unfinished line", { timeout: SHELL_TEST_TIMEOUT_MS, skip: fishPath === null ? 'fish is not installed' : false }, () => {
  test('Enter after an unclosed quote keeps editing the same line: no mark, no command, the quote closes it', async (t) => {
    const scope = useTestScope(t);
    const home = realpathSync(scope.tempDir('tend-si-home-'));
    const session = await IntegratedShellSession.start(scope, { shell: 'fish', shellPath: fishPath!, home });
    session.conn.input('echo "unclosed\r');
    await waitFor(() => session.screenText().includes('unclosed'), { what: 'the echo of the typed line' });
    session.conn.input('tail"\r');
    const command = await waitFor(() => (session.index.last()?.endedAt != null ? session.index.last()! : null), {
      what: 'the end of the command',
      describe: () => `screen: ${JSON.stringify(session.screenText())}`,
    });
    assert.equal(session.index.list().length, 1, 'one command: the first Enter did not end the line');
    assert.equal(command.exitCode, 0);
    assert.equal(session.countMarks('633;F'), 0, 'fish shows no continuation prompt');
    assert.match(command.commandLine, /^echo "unclosed\ntail"$/);
  });
});
