// Real bash, zsh and fish on real PTYs with tend's integration injected: the
// index must see each command, its exit status, output, line and cwd, and the
// user's own prompt hooks must go on working and seeing `$?`.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { shellIntegration, type IntegratedShell } from '../../src/shell-integration/index.js';
import { useTestScope } from '../support/test-scope.js';
import { IntegratedShellSession, SHELL_TEST_TIMEOUT_MS, appendLines, findShell } from './integrated-shell.js';

// What a user's rc file holds: their own prompt showing `$?`, their own
// prompt hook recording it, and — as if they had also added tend's snippet
// themselves — a second load of the integration, which must not double marks.
function writeUserRc(shell: IntegratedShell, home: string): void {
  const snippet = join(home, 'tend-snippet');
  writeFileSync(snippet, shellIntegration(shell));
  switch (shell) {
    case 'bash':
      appendLines(join(home, '.bashrc'), `PS1='[$?] u$ '`, `PROMPT_COMMAND='echo "$?" >> "$HOME/statuses"'`, `. "$HOME/tend-snippet"`);
      break;
    case 'zsh':
      appendLines(
        join(home, '.zshrc'),
        `PS1='[%?] u%# '`,
        `record_status() { echo $? >> $HOME/statuses }`,
        `precmd_functions+=(record_status)`,
        `. $HOME/tend-snippet`,
      );
      break;
    case 'fish': {
      const dir = join(home, '.config', 'fish');
      mkdirSync(dir, { recursive: true });
      appendLines(
        join(dir, 'config.fish'),
        'set -g fish_greeting',
        'function fish_prompt',
        '    set -l s $status',
        '    echo $s >> $HOME/statuses',
        "    printf '[%s] u> ' $s",
        'end',
        'source $HOME/tend-snippet',
      );
      break;
    }
  }
}

// A login setup that moves files where users move them: bash's login file
// sourcing .bashrc (whose PROMPT_COMMAND is an array), zsh's files under a
// ZDOTDIR set in ~/.zshenv, fish's login branch in config.fish. The probe
// prints what each login file set, and the expected output.
function writeUserLoginFiles(shell: IntegratedShell, home: string): { probe: string; expected: string } {
  switch (shell) {
    case 'bash':
      appendLines(join(home, '.bash_profile'), 'export FROM_PROFILE=1', '. ~/.bashrc');
      appendLines(join(home, '.bashrc'), `PROMPT_COMMAND=('echo "$?" >> "$HOME/statuses"')`, `PS1='[$?] u$ '`);
      // The injected bash is interactive, not login (bash ignores --rcfile in
      // a login shell), so its rc file reads the login files itself.
      return { probe: 'echo "$FROM_PROFILE"', expected: '1\n' };
    case 'zsh': {
      const zdot = join(home, '.config', 'zsh');
      mkdirSync(zdot, { recursive: true });
      appendLines(join(home, '.zshenv'), 'export ZDOTDIR=$HOME/.config/zsh');
      appendLines(join(zdot, '.zprofile'), 'export FROM_PROFILE=1');
      appendLines(join(zdot, '.zshrc'), `PS1='[%?] u%# '`, 'record_status() { echo $? >> $HOME/statuses }', 'precmd_functions+=(record_status)');
      appendLines(join(zdot, '.zlogin'), 'export FROM_LOGIN=1');
      return { probe: 'echo "$FROM_PROFILE $FROM_LOGIN $ZDOTDIR"', expected: `1 1 ${zdot}\n` };
    }
    case 'fish': {
      const dir = join(home, '.config', 'fish');
      mkdirSync(dir, { recursive: true });
      appendLines(
        join(dir, 'config.fish'),
        'set -g fish_greeting',
        'status is-login; and set -gx FROM_PROFILE 1',
        'function fish_prompt',
        '    set -l s $status',
        '    echo $s >> $HOME/statuses',
        "    printf '[%s] u> ' $s",
        'end',
      );
      return { probe: 'echo "$FROM_PROFILE"', expected: '1\n' };
    }
  }
}

for (const shell of ['bash', 'zsh', 'fish'] as const) {
  const shellPath = findShell(shell);
  const skip = shellPath === null ? `${shell} is not installed` : false;
  if (skip) console.log(`# skipping the ${shell} integration tests: ${skip}`);

  describe(`${shell} with the injected integration`, { timeout: SHELL_TEST_TIMEOUT_MS, skip }, () => {
    test('indexes echo hi, false and printf with exit codes 0, 1, 0, their outputs and lines', async (t) => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      writeUserRc(shell, home);
      const session = await IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home });

      const echo = await session.run('echo hi');
      const no = await session.run('false');
      const nothing = await session.run("printf ''");
      assert.deepEqual(
        [echo, no, nothing].map((c) => ({ number: c.number, commandLine: c.commandLine, exitCode: c.exitCode, cwd: c.cwd })),
        [
          { number: 1, commandLine: 'echo hi', exitCode: 0, cwd: home },
          { number: 2, commandLine: 'false', exitCode: 1, cwd: home },
          { number: 3, commandLine: "printf ''", exitCode: 0, cwd: home },
        ],
      );
      assert.deepEqual(session.index.output(1), { text: 'hi\n', complete: true });
      assert.deepEqual(session.index.output(2), { text: '', complete: true });
      assert.deepEqual(session.index.output(3), { text: '', complete: true });
      for (const c of [echo, no, nothing]) assert.ok(c.endedAt! >= c.startedAt, `command ${c.number} ends after it starts`);

      // Loaded twice (the user's rc and the injection), still one mark each.
      assert.equal(session.countMarks('133;C'), 3);
      assert.equal(session.countMarks('133;D'), 3);
      assert.equal(session.countMarks('133;A'), 4, 'one prompt start per prompt');
      assert.equal(session.countMarks('133;B'), 4);

      // The user's prompt and prompt hook saw each command's status.
      assert.ok(session.screenText().includes('[1] u'), 'the prompt after false shows its status');
      const statuses = readFileSync(join(home, 'statuses'), 'utf8').trim().split('\n');
      assert.deepEqual(statuses.slice(-3), ['0', '1', '0']);
    });

    test('follows cd into a directory with a space and non-ASCII name, and keeps exact lines', async (t) => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      writeUserRc(shell, home);
      const sub = join(home, 'a b', 'é;x');
      mkdirSync(sub, { recursive: true });
      const session = await IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home });

      const cd = await session.run(`cd 'a b/é;x'`);
      assert.equal(cd.cwd, home, 'cd itself ran in the old directory');
      const pwd = await session.run('pwd');
      assert.equal(pwd.cwd, sub);
      assert.deepEqual(session.index.output(pwd.number), { text: sub + '\n', complete: true });
      assert.equal(session.index.currentCwd, sub);

      // A line with the characters the 633;E escaping exists for.
      const line = `printf '%s\\n' 'semi;colon' "back\\\\slash"`;
      const printed = await session.run(line);
      assert.equal(printed.commandLine, line);
      assert.deepEqual(session.index.output(printed.number), { text: 'semi;colon\nback\\slash\n', complete: true });

      const failing = await session.run(`sh -c 'exit 42'`);
      assert.equal(failing.exitCode, 42);
      assert.equal(failing.commandLine, `sh -c 'exit 42'`);
    });

    test('the integration leaves the environment as the user had it', async (t) => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      writeUserRc(shell, home);
      const session = await IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home });
      const probe = await session.run(`env | grep -E '^(ZDOTDIR|TEND_)' | wc -l`);
      assert.deepEqual(session.index.output(probe.number), { text: '0\n', complete: true });
    });

    test('a login shell reads the user login files and still reports every mark', async (t) => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      const { probe, expected } = writeUserLoginFiles(shell, home);
      const session = await IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home, args: ['-l'] });
      const ran = await session.run(probe);
      assert.deepEqual(session.index.output(ran.number), { text: expected, complete: true });
      const failed = await session.run('false');
      assert.equal(failed.exitCode, 1);
      assert.ok(session.screenText().includes('[1] u'), 'the prompt after false shows its status');
      assert.deepEqual(readFileSync(join(home, 'statuses'), 'utf8').trim().split('\n').slice(-2), ['0', '1']);
    });

    test('a prompt the user redefines after startup still gets its marks, once each', async (t) => {
      const scope = useTestScope(t);
      const home = realpathSync(scope.tempDir('tend-si-home-'));
      writeUserRc(shell, home);
      const session = await IntegratedShellSession.start(scope, { shell, shellPath: shellPath!, home });
      const redefine =
        shell === 'fish' ? "function fish_prompt; printf 'new> '; end" : shell === 'zsh' ? "PS1='new%# '" : "PS1='new$ '";
      await session.run(redefine);
      const after = session.raw.length;
      const ls = await session.run('echo again');
      assert.deepEqual(session.index.output(ls.number), { text: 'again\n', complete: true });
      const tail = session.raw.slice(after);
      assert.equal(tail.split('\x1b]133;A').length - 1, 1, 'one A after the redefined prompt');
      assert.equal(tail.split('\x1b]133;B').length - 1, 1, 'one B');
      assert.ok(session.screenText().includes('new'), 'the new prompt is drawn');
    });
  });
}
