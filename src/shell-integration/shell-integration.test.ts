import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { escapeCommandLine, injectShellIntegration, shellIntegration, unescapeCommandLine, type IntegratedShell } from './index.js';

const TEST_TIMEOUT_MS = 30_000;
const SHELL_RUN_TIMEOUT_MS = 15_000;

function installed(shell: IntegratedShell): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'tend-si-unit-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Runs the snippet's escape function inside the real shell, interactively
// (the snippet only installs itself there), and returns what it produced.
function escapeInShell(shell: IntegratedShell, dir: string, line: string): string {
  const snippet = join(dir, `snippet.${shell}`);
  writeFileSync(snippet, shellIntegration(shell));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir };
  const script =
    shell === 'fish'
      ? `source ${snippet}; __tend_si_escape $argv[1]`
      : `. ${snippet}; __tend_si_escape "$1"; printf '%s' "$__tend_si_ret"`;
  const argv =
    shell === 'bash'
      ? ['--norc', '--noprofile', '-i', '-c', script, 'bash', line]
      : shell === 'zsh'
        ? ['-f', '-i', '-c', script, 'zsh', line]
        : ['--no-config', '-i', '-c', script, line];
  const r = spawnSync(shell, argv, { env, encoding: 'utf8', timeout: SHELL_RUN_TIMEOUT_MS });
  assert.equal(r.status, 0, `${shell} failed: ${r.stderr}`);
  return r.stdout;
}

describe('shell integration snippets', { timeout: TEST_TIMEOUT_MS }, () => {
  test('each snippet writes all four FinalTerm marks, the command line and the cwd', () => {
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const text = shellIntegration(shell);
      for (const mark of ['133;A', '133;B', '133;C', '133;D', '633;E', ']7;file://']) {
        assert.ok(text.includes(mark), `${shell} snippet writes ${mark}`);
      }
      assert.ok(!text.includes('\\${'), `${shell} snippet has no template escapes left in it`);
    }
  });

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const skip = installed(shell) ? false : `${shell} is not installed`;

    test(`the ${shell} snippet parses`, { skip }, () => {
      withTempDir((dir) => {
        const file = join(dir, `snippet.${shell}`);
        writeFileSync(file, shellIntegration(shell));
        const r = spawnSync(shell, ['-n', file], { encoding: 'utf8', timeout: SHELL_RUN_TIMEOUT_MS });
        assert.equal(r.status, 0, r.stderr);
      });
    });

    test(`the ${shell} snippet escapes command lines exactly as the index unescapes them`, { skip }, () => {
      withTempDir((dir) => {
        const lines = ['plain ls -la', 'a;b', 'back\\slash \\\\ two', 'tab\there', 'multi\nline\ncommand', 'bell\x07esc\x1b', 'é ü 漢字 ;\\', 'del\x7f'];
        for (const line of lines) {
          const escaped = escapeInShell(shell, dir, line);
          assert.equal(escaped, escapeCommandLine(line), `${shell} escaping of ${JSON.stringify(line)}`);
          assert.ok(!/[\x00-\x1f;\x7f]/.test(escaped), 'nothing that could end or split the OSC is left');
          assert.equal(unescapeCommandLine(escaped), line);
        }
      });
    });
  }
});

describe('command line escaping', () => {
  test('round-trips every character from 0x01 to 0x7f and beyond', () => {
    let all = '';
    for (let c = 1; c < 0x80; c++) all += String.fromCharCode(c);
    all += 'é漢😀';
    assert.equal(unescapeCommandLine(escapeCommandLine(all)), all);
  });

  test('keeps a backslash that starts no escape, as a lenient reader should', () => {
    assert.equal(unescapeCommandLine('a\\qb\\x4'), 'a\\qb\\x4');
    assert.equal(unescapeCommandLine('\\x41\\\\x41'), 'A\\x41');
  });
});

describe('injectShellIntegration', () => {
  const env = { HOME: '/home/u', PATH: '/bin' };

  test('leaves programs it does not know, and shells given a script or -c, unchanged', () => {
    withTempDir((dir) => {
      for (const argv of [['vim'], ['/bin/sh'], ['bash', '-c', 'echo'], ['bash', 'script.sh'], ['zsh', '-f'], ['fish', '-c', 'ls'], ['bash', '--norc'], []]) {
        assert.deepEqual(injectShellIntegration(argv, env, dir), { argv, env }, argv.join(' '));
      }
    });
  });

  test('starts bash with an rc file that sources ~/.bashrc, then the snippet', () => {
    withTempDir((dir) => {
      const out = injectShellIntegration(['/usr/bin/bash'], env, dir);
      assert.equal(out.argv[0], '/usr/bin/bash');
      assert.equal(out.argv[1], '--rcfile');
      assert.deepEqual(out.argv.slice(3), ['-i']);
      assert.deepEqual(out.env, env);
      const rc = readFileSync(out.argv[2]!, 'utf8');
      assert.ok(rc.indexOf('~/.bashrc') < rc.indexOf(shellIntegration('bash')));
      assert.equal(statSync(out.argv[2]!).mode & 0o777, 0o600);
    });
  });

  test('turns a bash login shell into an interactive one that reads the login files itself', () => {
    withTempDir((dir) => {
      const out = injectShellIntegration(['-bash', '-l'], env, dir);
      assert.deepEqual([out.argv[0], out.argv[1], out.argv[3]], ['-bash', '--rcfile', '-i']);
      assert.equal(out.env['TEND_SHELL_LOGIN'], '1');
    });
  });

  test("points zsh at its own ZDOTDIR and remembers the user's", () => {
    withTempDir((dir) => {
      const plain = injectShellIntegration(['zsh'], env, dir);
      assert.deepEqual(plain.argv, ['zsh']);
      assert.equal(plain.env['ZDOTDIR'], join(dir, 'zsh'));
      assert.equal(plain.env['TEND_USER_ZDOTDIR'], undefined);
      for (const file of ['.zshenv', '.zprofile', '.zshrc', '.zlogin']) assert.ok(statSync(join(dir, 'zsh', file)).isFile());
      const custom = injectShellIntegration(['zsh', '-l'], { ...env, ZDOTDIR: '/home/u/.config/zsh' }, dir);
      assert.deepEqual(custom.argv, ['zsh', '-l']);
      assert.equal(custom.env['TEND_USER_ZDOTDIR'], '/home/u/.config/zsh');
    });
  });

  test('gives fish an init command that sources the snippet, quoted for fish', () => {
    withTempDir((dir) => {
      const odd = join(dir, "it's here");
      const out = injectShellIntegration(['/usr/bin/fish', '-l'], env, odd);
      assert.deepEqual(out.argv.slice(0, 3), ['/usr/bin/fish', '-l', '--init-command']);
      assert.equal(out.argv[3], `source '${join(odd, 'fish', 'tend.fish').replace("'", "\\'")}'`);
      assert.equal(readFileSync(join(odd, 'fish', 'tend.fish'), 'utf8'), shellIntegration('fish'));
    });
  });
});
