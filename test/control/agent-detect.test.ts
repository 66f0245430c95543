// An agent a person starts by hand in a tend shell, with none of tend's hooks
// configured: the server finds it on the terminal (the PTY's foreground
// process and its command line), shows it as starting with a warning saying
// what to run, marks it exited when the shell has the terminal again; once the
// hooks are installed, the next run's first hook clears the warning and the
// hooks drive the state. Programs that are not agents never make one.
//
// The fake agent runs here as an npm-installed Node CLI does: a script named
// `claude` with a `#!node` line, so the process is `node …/bin/claude` (the
// fake's own bin scripts exec `node fake-agent.js --flavour claude`, which is
// no agent's command line).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, findShell, withServer, type ControlServer } from './control-server.js';
import type { AgentInfo, SessionInfo } from '../../src/protocol/api/index.js';
import { FAKE_AGENT_PROGRAM } from '../support/fake-agent/install-fake-agents.js';
import { DETECT_MIN_INTERVAL_MS, DETECT_QUIET_MS } from '../../src/server/agents/agent-detect.js';

const BASH = findShell('bash');
/** Tries at quitting the fake with Ctrl-C twice, and how long each waits for it to ask for the second. */
const QUIT_ATTEMPTS = 4;
const EXIT_HINT_WAIT_MS = 5_000;
/** A check comes at most this long after a session's output went quiet. */
const CHECK_BOUND_MS = DETECT_QUIET_MS + DETECT_MIN_INTERVAL_MS;

/** Writes `bin/claude`: a Node script that runs the fake agent's claude flavour, as npm installs a Node CLI. */
function installNodeScriptClaude(dir: string): string {
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const script = join(binDir, 'claude');
  // CommonJS (no package.json above it says otherwise), loading the ES module fake.
  writeFileSync(script, [
    `#!${process.execPath}`,
    `process.argv.splice(2, 0, '--flavour', 'claude');`,
    `import(${JSON.stringify(pathToFileURL(FAKE_AGENT_PROGRAM).href)});`,
    '',
  ].join('\n'));
  chmodSync(script, 0o755);
  return binDir;
}

async function withNodeClaude(fn: (s: ControlServer, configDir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-agent-detect-'));
  const configDir = join(dir, 'claude-config');
  mkdirSync(configDir);
  try {
    const binDir = installNodeScriptClaude(dir);
    await withServer((s) => fn(s, configDir), { PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`, CLAUDE_CONFIG_DIR: configDir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function agentOf(s: ControlServer, id: string): Promise<AgentInfo | null> {
  const info = await s.api<SessionInfo>('GET', `/v1/sessions/${id}`);
  assert.equal(info.status, 200, JSON.stringify(info.body));
  return info.body.agent;
}

async function send(s: ControlServer, target: string, args: string[]): Promise<void> {
  const r = await s.cli(['send', target, ...args]);
  assert.equal(r.code, 0, r.stderr);
}

/**
 * Ctrl-C twice at the fake's prompt, the second once it asks for it: the agent quits, the shell
 * shows its prompt. Straight through the API, keys and screen: the second must land within the fake's 2 s
 * window, which CLI processes started on a loaded machine can miss. A first Ctrl-C that found text
 * at the prompt clears it instead of asking, and on a loaded machine the 2 s hint can come and go
 * between two looks at the screen: then it is pressed again. Whether the agent quit is the caller's
 * next check (it is marked exited).
 */
async function quitAgent(s: ControlServer, id: string): Promise<void> {
  const ctrlC = async () => assert.equal((await s.api('POST', `/v1/sessions/${id}/input`, { text: '\x03' })).status, 200);
  const asked = async () => {
    const screen = await s.api<{ text: string }>('GET', `/v1/sessions/${id}/screen`);
    return screen.status === 200 && screen.body.text.includes('Press Ctrl-C again to exit');
  };
  for (let attempt = 1; attempt <= QUIT_ATTEMPTS; attempt++) {
    await ctrlC();
    const seen = await waitFor('the fake asking for a second Ctrl-C', asked, EXIT_HINT_WAIT_MS).then(() => true, () => false);
    if (seen) {
      await ctrlC();
      return;
    }
  }
}

describe('an agent started in a tend shell without tend\'s hooks', { timeout: CONTROL_TEST_TIMEOUT_MS, skip: BASH === null ? 'needs bash' : false }, () => {
  test('is noticed on the terminal (claude, starting, a warning saying what to run), marked exited when it quits; with the hooks installed its next run\'s first hook clears the warning and drives the state', () =>
    withNodeClaude(async (s, configDir) => {
      const id = await s.newShell([BASH!], { name: 'a' });
      assert.equal(await agentOf(s, id), null);

      await send(s, ':a', ['claude', '--enter']);
      await waitFor('the fake claude on screen', async () => /Fake Claude Code · session/.test(await s.screen(id)), 30_000);
      const noticed = await waitFor('the agent noticed', () => agentOf(s, id), CHECK_BOUND_MS + 15_000);
      assert.deepEqual(
        { kind: noticed.kind, state: noticed.state, launchedByTend: noticed.launchedByTend, hooksSeen: noticed.hooksSeen },
        { kind: 'claude', state: 'starting', launchedByTend: false, hooksSeen: false },
      );
      assert.match(noticed.warning ?? '', /^no hook of Claude Code has reached tend: run `tend hooks install claude`/);
      const status = await s.cli(['agent', 'status', ':a']);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /tend hooks install claude/, 'tend agent status shows the warning');

      await quitAgent(s, id);
      const exited = await waitFor('the agent marked exited', async () => {
        const a = await agentOf(s, id);
        return a?.state === 'exited' ? a : null;
      }, CHECK_BOUND_MS + 15_000);
      assert.equal(exited.kind, 'claude', 'kept, not removed');

      const installed = await s.cli(['hooks', 'install', 'claude']);
      assert.equal(installed.code, 0, installed.stderr);
      assert.ok(existsSync(join(configDir, 'settings.json')), `installed in the test's CLAUDE_CONFIG_DIR: ${installed.stdout}`);

      await send(s, ':a', ['claude', '--enter']);
      const hooked = await waitFor('the first hook (SessionStart) heard', async () => {
        const a = await agentOf(s, id);
        return a !== null && a.hooksSeen && a.state === 'idle' ? a : null;
      }, 30_000);
      assert.equal(hooked.warning, undefined, 'the first hook cleared the warning');
      assert.match(hooked.agentSessionId ?? '', /^[0-9a-f-]{36}$/, 'the conversation id from SessionStart');

      await send(s, ':a', ['echo followed by hooks', '--enter']);
      const answered = await waitFor('the turn answered (Stop)', async () => {
        const a = await agentOf(s, id);
        return a?.state === 'idle' && a.lastTurn?.outcome === 'answered' ? a : null;
      }, 30_000);
      assert.deepEqual([answered.lastTurn?.prompt, answered.lastTurn?.answer], ['echo followed by hooks', 'followed by hooks']);

      await quitAgent(s, id);
      await waitFor('exited by its SessionEnd hook', async () => (await agentOf(s, id))?.state === 'exited', 30_000);
      assert.equal((await agentOf(s, id))?.warning, undefined, 'a hooked agent\'s end is not taken for an agent without hooks');
    }));

  test('programs that are not agents (sleep, cat, less claude) never make one, while a claude started beside them is noticed', () =>
    withNodeClaude(async (s) => {
      const others: Array<{ name: string; line: string; shows: RegExp }> = [
        { name: 'sleeper', line: 'sleep 60', shows: /sleep 60\n/ },
        { name: 'reader', line: 'cat', shows: /[$#] cat\n/ },
        // A file named like the agent, shown by a program that is not one.
        { name: 'pager', line: 'cd ~ && printf "not an agent\\n" > claude && less claude', shows: /not an agent/ },
      ];
      const ids = new Map<string, string>();
      for (const o of others) ids.set(o.name, await s.newShell([BASH!], { name: o.name }));
      const control = await s.newShell([BASH!], { name: 'control' });
      for (const o of others) await send(s, `:${o.name}`, [o.line, '--enter']);
      await send(s, ':control', ['claude', '--enter']);
      for (const o of others) await waitFor(`${o.line} running`, async () => o.shows.test(await s.screen(ids.get(o.name)!)), 30_000);

      // The detector is at work: the claude beside them is found.
      await waitFor('the claude in :control noticed', async () => (await agentOf(s, control))?.kind === 'claude', CHECK_BOUND_MS + 15_000);
      // Each program has held its terminal, quiet, past the latest a check could come.
      await new Promise((resolve) => setTimeout(resolve, CHECK_BOUND_MS + 1_000));
      for (const o of others) assert.equal(await agentOf(s, ids.get(o.name)!), null, `${o.line} is no agent`);
    }));
});
