// `tend agent`, `tend new --agent` and the AGENT column of `tend ls`, end to
// end: the real CLI against a real server, holders and shells, with the test
// agent program (test/support/fake-agent) on PATH as claude and codex. The
// agent is started in the session's shell and its hooks (tend's, passed with
// --settings for Claude, or from Codex's own hooks.json) reach the server
// through the real hook client.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, repoRoot, type CliResult } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer, type ControlServer } from '../control/control-server.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { tendHooksSettings } from '../../src/common/agents/catalogue.js';
import { defaultHookClientPath } from '../../src/common/agents/hook-client-path.js';
import type { AgentInfo, ListedSession } from '../../src/protocol/api/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
let codexHome: string;
let s: ControlServer;

before(() => {
  dir = makeTempDir('tend-agent-cli-');
  codexHome = join(dir, 'codex-home');
  const agents = installFakeAgents(dir);
  s = startControlServer({
    ...agents.env,
    // The agents' own settings live in this test's directories, never the user's.
    CLAUDE_CONFIG_DIR: join(dir, 'claude-home'),
    CODEX_HOME: codexHome,
    // The fake Codex runs hooks only when told they are trusted (the real one: in its /hooks screen).
    FAKE_CODEX_TRUST_HOOKS: '1',
  });
});

after(async () => {
  await s.dispose();
  removeTempDir(dir);
});

function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}; stderr: ${r.stderr}`);
  return r;
}

async function sessions(): Promise<ListedSession[]> {
  return JSON.parse(ok(await s.cli(['ls', '--json'])).stdout) as ListedSession[];
}

async function agentOf(target: string): Promise<AgentInfo | null> {
  const r = await s.api<ListedSession>('GET', `/v1/sessions/${encodeURIComponent(target)}`);
  return r.status === 200 ? r.body.agent : null;
}

async function waitForState(target: string, state: AgentInfo['state']): Promise<AgentInfo> {
  let last: AgentInfo | null = null;
  return waitFor(`${target}'s agent to be ${state}`, async () => {
    last = await agentOf(target);
    return last?.state === state ? last : null;
  }, 30_000).catch((err: Error) => {
    throw new Error(`${err.message}; agent: ${JSON.stringify(last)}`);
  });
}

/** The `tend ls` row of the session named `name`. */
function lsRow(out: string, name: string): string {
  const row = out.split('\n').find((line) => line.split(/\s+/)[2] === name);
  assert.ok(row, `no row for ${name} in:\n${out}`);
  return row;
}

/** One JSON error on stderr. */
function jsonError(r: CliResult): { code: string; message: string; candidates?: string[] } {
  return (JSON.parse(r.stderr.trim()) as { error: { code: string; message: string; candidates?: string[] } }).error;
}

describe('tend agent', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('an unknown agent is a usage error with the nearest name, and starts nothing', async () => {
    const r = await s.cli(['agent', 'claud']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^tend: no agent or action "claud" \(did you mean claude\?\); tend agent takes claude, codex, gemini, sleep, wake or status\n$/);
    const j = await s.cli(['agent', 'geminy', '--json']);
    assert.equal(j.code, 2);
    assert.deepEqual(jsonError(j), { code: 'usage', message: 'no agent or action "geminy" (did you mean gemini?); tend agent takes claude, codex, gemini, sleep, wake or status', candidates: ['gemini'] });
    const viaNew = await s.cli(['new', '--agent', 'codx']);
    assert.equal(viaNew.code, 2);
    assert.match(viaNew.stderr, /^tend: --agent "codx" is no agent tend knows \(did you mean codex\?\); it takes claude, codex or gemini\n$/);
    const words = await s.cli(['agent', 'claude', '--model', 'x']);
    assert.equal(words.code, 2);
    assert.match(words.stderr, /unknown option --model/);
    const loose = await s.cli(['agent', 'claude', 'hello']);
    assert.equal(loose.code, 2);
    assert.match(loose.stderr, /put the agent's arguments after --, as in `tend agent claude -- hello`/);
    const sleepy = await s.cli(['agent', 'sleep']);
    assert.equal(sleepy.code, 2);
    assert.match(sleepy.stderr, /^tend: missing TARGET/);
    assert.match((await s.cli(['agent', 'wake', ':x', '--name', 'y'])).stderr, /--name is for starting an agent, not for `tend agent wake`/);
    assert.match((await s.cli(['agent', 'claude', '--sleep-after', '5 parsecs'])).stderr, /--sleep-after takes a time like 90s, 10m or 2h/);
    assert.equal(s.serverPid(), null, 'no server was started for a wrong command line');
  });

  test('--help shows every form', async () => {
    const r = ok(await s.cli(['agent', '--help']));
    for (const form of ['tend agent claude|codex|gemini [--name N]', 'tend agent sleep TARGET', 'tend agent wake TARGET', 'tend agent status [TARGET]', 'Exit status:']) {
      assert.ok(r.stdout.includes(form), `${form} in:\n${r.stdout}`);
    }
    assert.equal(ok(await s.cli(['agent', 'sleep', '--help'])).stdout, r.stdout);
    assert.match(ok(await s.cli(['new', '--help'])).stdout, /tend new --agent claude\|codex\|gemini/);
    assert.match(ok(await s.cli(['help'])).stdout, /^ {2}agent +start an AI coding agent/m);
  });

  test('tend agent claude starts Claude in a shell with tend\'s hooks: ls shows "claude idle", status its conversation and last turn', async () => {
    const started = ok(await s.cli(['agent', 'claude', '--name', 'c1', '--sleep-after', '90s', '--', '--model', 'fake-model']));
    assert.match(started.stdout, /^[a-z][a-z0-9]{7}\n$/);
    assert.equal(started.stderr, '', 'no hint for Claude: its hooks are passed for the run');
    const id = started.stdout.trim();
    await s.holderPids();
    const shown = await sessions();
    const c1 = shown.find((x) => x.id === id)!;
    assert.match(c1.argv[0]!, /(^|\/)(bash|zsh|fish|sh|dash)$/, 'the session runs a shell, not the agent');

    // The fake Claude's SessionStart hook, through tend's hook client, makes it idle.
    const idle = await waitForState(':c1', 'idle');
    assert.equal(idle.kind, 'claude');
    assert.match(idle.agentSessionId ?? '', UUID);
    assert.equal(idle.launchedByTend, true);
    assert.equal(idle.sleepAfterMs, 90_000);
    assert.equal(idle.hooksSeen, true);
    // The agent the shell started is the one tend chose the conversation id for.
    assert.match(await s.screen(':c1'), new RegExp(`session ${idle.agentSessionId}`));

    const ls = ok(await s.cli(['ls'])).stdout;
    assert.match(ls.split('\n')[0]!, /^#\s+ID\s+NAME\s+STATUS\s+AGENT\s+SIZE/);
    assert.match(lsRow(ls, 'c1'), /\brunning\s+claude idle\s+\d+x\d+/);
    assert.doesNotMatch(ls, /\x1b\[/, 'no colour when stdout is no terminal');
    const listed = (await sessions()).find((x) => x.id === id)!;
    assert.equal(listed.agent?.state, 'idle', 'ls --json carries the agent as the API does');

    // A turn: its answer shows as the last turn.
    ok(await s.cli(['send', ':c1', 'echo hello there', '--enter']));
    const answered = await waitFor('the turn to be answered', async () => ((await agentOf(':c1'))?.lastTurn?.outcome === 'answered' ? agentOf(':c1') : null));
    assert.equal(answered?.lastTurn?.answer, 'hello there');

    const text = ok(await s.cli(['agent', 'status'])).stdout;
    assert.match(text.split('\n')[0]!, /^SESSION\s+AGENT\s+STATE\s+SINCE\s+CONVERSATION\s+LAST TURN$/);
    assert.match(text, new RegExp(`^:c1\\s+claude\\s+idle\\s+\\d+s ago\\s+${idle.agentSessionId}\\s+answered \\d+s ago: hello there$`, 'm'));
    const all = JSON.parse(ok(await s.cli(['agent', 'status', '--json'])).stdout) as Array<{ session: string; name: string; agent: AgentInfo }>;
    const mine = all.find((a) => a.session === id);
    assert.ok(mine, JSON.stringify(all));
    assert.equal(mine.name, 'c1');
    assert.equal(mine.agent.kind, 'claude');
    assert.equal(mine.agent.agentSessionId, idle.agentSessionId);
    assert.equal(mine.agent.lastTurn?.answer, 'hello there');
    const one = JSON.parse(ok(await s.cli(['agent', 'status', ':c1', '--json'])).stdout) as { session: string; agent: AgentInfo };
    assert.equal(one.session, id);
    assert.equal(one.agent.state, 'idle');
  });

  test('tend agent sleep and wake put the agent to sleep and resume it, printing its state', async () => {
    // :c1 (the test before) is idle after an answered turn: it may sleep.
    const slept = await s.cli(['agent', 'sleep', ':c1'], { timeoutMs: 60_000 });
    assert.equal(slept.code, 0, slept.stderr);
    assert.equal(slept.stdout, ':c1: claude sleeping\n');
    assert.match(lsRow(ok(await s.cli(['ls'])).stdout, 'c1'), /\bclaude sleeping\b/);
    assert.match(ok(await s.cli(['agent', 'status'])).stdout, /^:c1\s+claude\s+sleeping\s/m);
    const before = await agentOf(':c1');
    const woken = JSON.parse(ok(await s.cli(['agent', 'wake', ':c1', '--json'], { timeoutMs: 60_000 })).stdout) as { session: string; agent: AgentInfo };
    assert.equal(woken.session, (await sessions()).find((x) => x.name === 'c1')!.id);
    assert.ok(['waking', 'idle'].includes(woken.agent.state), woken.agent.state);
    const awake = await waitForState(':c1', 'idle');
    assert.equal(awake.agentSessionId, before?.agentSessionId, 'the same conversation');
  });

  test('an agent asking for permission stands out in tend ls on a terminal, and cannot be put to sleep', async () => {
    ok(await s.cli(['agent', 'claude', '--name', 'asker']));
    await s.holderPids();
    await waitForState(':asker', 'idle');
    ok(await s.cli(['send', ':asker', 'run it, with permission', '--enter']));
    const asking = await waitForState(':asker', 'needs-permission');
    assert.match(asking.asking ?? '', /^Bash\b/);

    // `tend ls` on a real terminal (script(1) gives it one).
    const env = { ...s.env };
    delete env.NO_COLOR;
    const tty = spawnSync('script', ['-qec', `${process.execPath} ${join(repoRoot, 'bin', 'tend.js')} ls`, '/dev/null'], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(tty.status, 0, tty.stderr);
    assert.match(tty.stdout, /\x1b\[1;33mclaude needs-permission\x1b\[0m/);
    const agentCell = tty.stdout.split('\n').find((l) => l.includes(' c1 '));
    assert.ok(agentCell && !agentCell.includes('\x1b[1;33m'), 'an idle agent is not marked');
    const status = ok(await s.cli(['agent', 'status', ':asker'])).stdout;
    // What it asks for: the tool, or (once the agent's own notification came) its message.
    assert.match(status, /^:asker\s+claude\s+needs-permission \(.+\)\s+\d+s ago\s/m);
    assert.doesNotMatch(status, /\x1b\[/);
    const ttyStatus = spawnSync('script', ['-qec', `${process.execPath} ${join(repoRoot, 'bin', 'tend.js')} agent status`, '/dev/null'], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(ttyStatus.status, 0, ttyStatus.stderr);
    assert.match(ttyStatus.stdout, /^:asker\s+claude\s+\x1b\[1;33mneeds-permission \(.+\)\x1b\[0m/m);
    assert.match(ttyStatus.stdout, /^:c1\s+claude\s+idle\s/m, 'an idle agent is not marked');

    const refused = await s.cli(['agent', 'sleep', ':asker', '--json']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(jsonError(refused).code, 'agent_cannot_sleep');
  });

  test('--attach attaches this terminal to the new session at once; detaching leaves the agent running', async () => {
    // script(1) gives the CLI a real terminal; what is typed into script's stdin reaches it.
    const tend = `${process.execPath} ${join(repoRoot, 'bin', 'tend.js')}`;
    const child = spawn('script', ['-qec', `${tend} agent claude --name at --attach`, '/dev/null'], { env: s.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor('the agent on the attached terminal', () => /Fake Claude Code · session/.test(out), 30_000);
      await s.holderPids();
      await waitForState(':at', 'idle');
      child.stdin.write('\x1c'); // the prefix, Ctrl-\
      child.stdin.write('d');
      assert.equal(await exited, 0, out.slice(-400));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    assert.match(out, /\[detached from :at \(/);
    assert.equal((await agentOf(':at'))?.state, 'idle', 'the agent runs on');
    const count = (await sessions()).length;
    const noTerminal = await s.cli(['agent', 'claude', '--attach']);
    assert.equal(noTerminal.code, 2);
    assert.match(noTerminal.stderr, /--attach needs a terminal on its input/);
    assert.equal((await sessions()).length, count, 'refused before a session starts');
  });

  test('sleep, wake and status on a session without an agent say no_agent', async () => {
    ok(await s.cli(['new', '--name', 'plain', '--', 'bash']));
    await s.holderPids();
    for (const action of ['sleep', 'wake', 'status']) {
      const r = await s.cli(['agent', action, ':plain']);
      assert.equal(r.code, 1, `${action}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^tend: session :plain has no agent: start one with `tend agent/, action);
      const j = await s.cli(['agent', action, ':plain', '--json']);
      assert.equal(j.code, 1);
      assert.equal(jsonError(j).code, 'no_agent', action);
    }
    assert.match(lsRow(ok(await s.cli(['ls'])).stdout, 'plain'), /\brunning\s+-\s+\d+x\d+/, 'no agent: "-" in the AGENT column');
    const missing = await s.cli(['agent', 'sleep', ':no-such-session']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no session is named/);
  });

  test('tend new --agent claude does what tend agent claude does', async () => {
    const r = ok(await s.cli(['new', '--agent', 'claude', '--name', 'n1', '--json', '--', '--model', 'x']));
    const session = JSON.parse(r.stdout) as ListedSession;
    assert.equal(session.name, 'n1');
    assert.equal(session.agent?.kind, 'claude');
    assert.equal(session.agent?.state, 'starting');
    await s.holderPids();
    await waitForState(':n1', 'idle');
    assert.match(lsRow(ok(await s.cli(['ls'])).stdout, 'n1'), /\bclaude idle\b/);
    const wrong = await s.cli(['new', '--agent', 'claude', 'vim']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /with --agent the session runs your shell; put the agent's arguments after --: tend new --agent claude -- vim/);
    assert.match((await s.cli(['new', '--sleep-after', '5m', '--', 'true'])).stderr, /--sleep-after is for an agent: give --agent KIND too/);
  });

  test('codex: a hint when tend\'s hooks are not in its hooks.json; none once they are, and its hooks then report', async () => {
    const bare = ok(await s.cli(['agent', 'codex', '--name', 'cx1']));
    await s.holderPids();
    assert.equal(bare.stderr, `tend: tend's hooks are not in ${join(codexHome, 'hooks.json')}, so tend cannot tell Codex's state: run \`tend hooks install codex\`, then trust them in Codex's /hooks screen\n`);
    assert.equal((await agentOf(':cx1'))?.state, 'starting');

    // What `tend hooks install codex` writes: tend's entries, with this tend's hook client.
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'hooks.json'), JSON.stringify({ hooks: tendHooksSettings(defaultHookClientPath(), 'codex') }, null, 2));
    const installed = ok(await s.cli(['agent', 'codex', '--name', 'cx2']));
    await s.holderPids();
    assert.equal(installed.stderr, '');
    await waitForState(':cx2', 'idle');
    assert.match(lsRow(ok(await s.cli(['ls'])).stdout, 'cx2'), /\bcodex idle\b/);

    // A hooks.json that is not JSON: said, not guessed.
    writeFileSync(join(codexHome, 'hooks.json'), '{ "hooks": ');
    const broken = ok(await s.cli(['agent', 'codex', '--name', 'cx3']));
    await s.holderPids();
    assert.match(broken.stderr, /^tend: could not read .*hooks\.json to see whether tend's hooks are there/);
  });
});
