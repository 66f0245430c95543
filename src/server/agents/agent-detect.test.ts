// Which command lines are an agent: the program by its name, or a Node-based
// CLI by the script it runs; never a program that only names an agent in an
// argument. And the warning each agent gets, which its first hook clears.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { agentOfCommandLine, hooksMissingWarning, procCommandLine } from './agent-detect.js';
import { HOOKS_SILENT_PREFIX } from './session-agent.js';

describe('agentOfCommandLine', () => {
  test('a program named as an agent, by a name or a path, whatever its arguments', () => {
    assert.equal(agentOfCommandLine(['claude']), 'claude');
    assert.equal(agentOfCommandLine(['/home/u/.local/bin/claude', '--model', 'opus']), 'claude');
    assert.equal(agentOfCommandLine(['codex', 'resume', 'abc']), 'codex');
    assert.equal(agentOfCommandLine(['gemini']), 'gemini');
  });

  test('a script run by node or bun: its name, its extension dropped, or its npm package', () => {
    assert.equal(agentOfCommandLine(['node', '/usr/bin/claude']), 'claude');
    assert.equal(agentOfCommandLine(['/usr/bin/node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js']), 'claude');
    assert.equal(agentOfCommandLine(['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js']), 'codex');
    assert.equal(agentOfCommandLine(['node', '--no-warnings=DEP0040', '/usr/local/bin/gemini']), 'gemini');
    assert.equal(agentOfCommandLine(['node', '/opt/lib/node_modules/@google/gemini-cli/dist/index.js']), 'gemini');
    assert.equal(agentOfCommandLine(['bun', '/home/u/.bun/bin/codex']), 'codex');
  });

  test('programs that only name an agent in an argument, or scripts that are not one, are not an agent', () => {
    assert.equal(agentOfCommandLine(['vim', 'claude.md']), null);
    assert.equal(agentOfCommandLine(['less', 'claude']), null, 'only a script runner runs its argument');
    assert.equal(agentOfCommandLine(['sh', '/usr/bin/claude']), null, 'a shell is the shell');
    assert.equal(agentOfCommandLine(['node', 'claude.md']), null);
    assert.equal(agentOfCommandLine(['node', '/srv/app/claude-helper.js']), null);
    assert.equal(agentOfCommandLine(['node', '/srv/node_modules/@anthropic-ai/sdk/index.js']), null);
    assert.equal(agentOfCommandLine(['node']), null);
    assert.equal(agentOfCommandLine(['claude-monitor']), null);
    assert.equal(agentOfCommandLine(['']), null);
    assert.equal(agentOfCommandLine([]), null);
  });
});

test('the warning says what to run for each agent, and starts as the first hook clears it', () => {
  assert.match(hooksMissingWarning('claude'), /^no hook of Claude Code has reached tend: run `tend hooks install claude` \(or start it with `tend agent claude`/);
  assert.match(hooksMissingWarning('codex'), /`tend hooks install codex`, then trust them in Codex's \/hooks screen/);
  assert.equal(hooksMissingWarning('gemini'), 'no hook of Gemini CLI has reached tend: run `tend hooks install gemini`');
  for (const kind of ['claude', 'codex', 'gemini'] as const) assert.ok(hooksMissingWarning(kind).startsWith(HOOKS_SILENT_PREFIX));
});

test('procCommandLine reads a process\'s argv on Linux, and says nothing of a process that is gone', { skip: process.platform !== 'linux' }, async () => {
  const argv = [process.execPath, '-e', 'setTimeout(() => {}, 30000)', 'an argument with spaces'];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  try {
    await new Promise((resolve) => child.once('spawn', resolve));
    // Right after spawn the child may still show its parent's argv (before exec): asked until it shows its own.
    const deadline = Date.now() + 10_000;
    let seen = procCommandLine(child.pid!);
    while (JSON.stringify(seen) !== JSON.stringify(argv) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = procCommandLine(child.pid!);
    }
    assert.deepEqual(seen, argv);
  } finally {
    child.kill('SIGKILL');
  }
  await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(procCommandLine(child.pid!), null);
});
