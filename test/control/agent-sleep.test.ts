// Sleep and wake of an agent, on a real server with real holders, the CLI
// and the fake agent CLI (test/support/fake-agent) run by tend with its
// hooks: a sleeping agent's process is gone, its screen is what viewers and
// `tend screen` show, input wakes it (its conversation resumed) and reaches
// it once; sleeping by hand is refused while it works or asks, and outside a
// shell; an idle agent sleeps by itself; a sleeping agent stays asleep, with
// the same screen, across a server SIGKILL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import xtermHeadless from '@xterm/headless';
import { isAlive, waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer, type ControlServer } from './control-server.js';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import { shQuote } from '../../src/common/agents/catalogue.js';
import { decodeFrameFromServer, encodeFrameToServer, VIEWER_PROTOCOL_VERSION, type FrameFromServer } from '../../src/protocol/viewer-frames.js';
import type { AgentActionReply, AgentEventReply, AgentInfo, SessionInfo } from '../../src/protocol/api/index.js';

interface AgentServer {
  s: ControlServer;
  /** The hook log: one JSON payload a line, every event the fake agent ran a hook for. */
  log: string;
}

/** A server whose sessions find the fake agents first on PATH; the user's own Claude settings log every hook. */
function startAgentServer(scope: TestScope, env: Record<string, string> = {}): AgentServer {
  const dir = scope.tempDir('tend-agent-sleep-');
  const agents = installFakeAgents(dir);
  const s = startControlServer({ ...agents.env, TEND_AGENT_SLEEP_MINUTES: '0', ...env });
  scope.defer(() => s.dispose());
  const log = join(dir, 'hooks.log');
  const command = `{ cat; echo; } >> ${shQuote(log)}`;
  const events = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'];
  mkdirSync(join(s.shellHome, '.claude'), { recursive: true });
  writeFileSync(join(s.shellHome, '.claude', 'settings.json'), JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: 'command', command, timeout: 10 }] }]])) }));
  return { s, log };
}

function hooks(log: string): Array<Record<string, any>> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

async function agentOf(s: ControlServer, id: string): Promise<AgentInfo> {
  const r = await s.api<SessionInfo>('GET', `/v1/sessions/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.agent!;
}

async function waitForAgent(s: ControlServer, id: string, what: string, ok: (a: AgentInfo) => boolean, timeoutMs = 30_000): Promise<AgentInfo> {
  let last: AgentInfo | null = null;
  return waitFor(what, async () => {
    last = await agentOf(s, id);
    return ok(last) ? last : null;
  }, timeoutMs).catch((err: Error) => {
    throw new Error(`${err.message}; agent: ${JSON.stringify(last)}`);
  });
}

/** Starts the fake Claude in a new bash session, as `tend agent claude` does; resolves once it is idle. */
async function startClaude(s: ControlServer, name: string, sleepAfterMs = 0): Promise<string> {
  const server = await s.cli(['server', 'start']);
  assert.equal(server.code, 0, server.stderr);
  const r = await s.api<SessionInfo>('POST', '/v1/sessions', { argv: ['bash'], name, cols: 100, rows: 30, agent: { kind: 'claude', sleepAfterMs } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await s.holderPids();
  await waitForAgent(s, r.body.id, 'the agent started', (a) => a.state === 'idle' && a.agentSessionId !== null);
  return r.body.id;
}

async function send(s: ControlServer, id: string, text: string): Promise<void> {
  const r = await s.cli(['send', id, text, '--enter']);
  assert.equal(r.code, 0, r.stderr);
}

/** A prompt typed and answered: the agent idle again with that answer. */
async function turn(s: ControlServer, id: string, text: string, answer: string): Promise<void> {
  await send(s, id, text);
  await waitForAgent(s, id, `the answer ${answer}`, (a) => a.state === 'idle' && a.lastTurn?.answer === answer);
}

/** The processes whose parent is pid (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The agent's process: the session's shell's child running `name` (the shell's prompt hooks may have short-lived children too). */
async function agentPid(s: ControlServer, id: string, name = 'node'): Promise<number> {
  const shell = (await s.api<SessionInfo>('GET', `/v1/sessions/${id}`)).body.pid!;
  return waitFor(`the agent process (${name}) under the shell`, () => childrenOf(shell).find((p) => commandName(p) === name));
}

async function screenText(s: ControlServer, id: string): Promise<string> {
  const r = await s.cli(['screen', id]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The live screen the server parses (format=snapshot reads it whatever viewers are shown), as text. */
async function liveScreenText(s: ControlServer, id: string): Promise<string> {
  const r = await s.api<{ data: string; cols: number; rows: number }>('GET', `/v1/sessions/${id}/screen?format=snapshot`);
  assert.equal(r.status, 200);
  return renderedText(r.body.data, r.body.cols, r.body.rows);
}

async function renderedText(data: string, cols: number, rows: number): Promise<string> {
  const term = new xtermHeadless.Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(data, resolve));
  const lines: string[] = [];
  const buffer = term.buffer.active;
  for (let y = 0; y < rows; y++) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  term.dispose();
  return normalized(lines.join('\n'));
}

/** Rows with their trailing blanks and the blank rows at the end dropped: how `tend screen` prints a screen. */
function normalized(text: string): string {
  return text.split('\n').map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '');
}

/** A read-only script viewer of one session: every frame it is sent, the screen it would show. */
class Viewer {
  readonly frames: FrameFromServer[] = [];
  private constructor(private readonly ws: WebSocket) {}

  static async open(s: ControlServer, id: string, scope: TestScope): Promise<Viewer> {
    const ws = new WebSocket(`ws+unix://${s.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const v = new Viewer(ws);
    scope.defer(() => ws.terminate());
    ws.on('message', (data: Buffer) => v.frames.push(decodeFrameFromServer(data)));
    ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
    ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: id, cols: 100, rows: 30 }));
    await waitFor('the first snapshot', () => v.snapshots().length > 0);
    return v;
  }

  snapshots(): Array<Extract<FrameFromServer, { type: 'snapshot' }>> {
    return this.frames.filter((f): f is Extract<FrameFromServer, { type: 'snapshot' }> => f.type === 'snapshot');
  }

  dataBytesSince(index: number): number {
    return this.frames.slice(index).reduce((n, f) => n + (f.type === 'data' ? f.data.length : 0), 0);
  }

  /** What the viewer shows: its last snapshot and the DATA after it. */
  async shown(): Promise<string> {
    const all = this.frames;
    let at = -1;
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.type === 'snapshot') { at = i; break; }
    const snap = all[at] as Extract<FrameFromServer, { type: 'snapshot' }>;
    const after = all.slice(at + 1).flatMap((f) => (f.type === 'data' ? [Buffer.from(f.data).toString('latin1')] : []));
    const data = snap.data + Buffer.from(after.join(''), 'latin1').toString('utf8');
    return renderedText(data, snap.cols, snap.rows);
  }

  agentStates(): string[] {
    return this.frames.flatMap((f) => (f.type === 'state' && f.state.agent ? [(f.state.agent as AgentInfo).state] : []));
  }
}

async function sleepByHand(s: ControlServer, id: string) {
  return s.api<AgentActionReply & { error?: { code: string; message: string } }>('POST', `/v1/sessions/${id}/agent/sleep`, {});
}

/** Asleep: the agent's process gone, and its kept screen saved. */
async function waitAsleep(s: ControlServer, id: string, pid: number): Promise<void> {
  await waitFor('the agent process to end', () => !isAlive(pid), 20_000);
  await waitFor('the kept screen saved', () => existsSync(join(s.home, 'agents', id, 'kept-screen.json')));
  const a = await agentOf(s, id);
  assert.equal(a.state, 'sleeping', JSON.stringify(a));
}

describe('agent sleep and wake', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('asleep by hand: the process is gone, viewers and tend screen keep its screen; input wakes it and reaches it once', async (t) => {
    const scope = useTestScope(t);
    const { s, log } = startAgentServer(scope);
    const id = await startClaude(s, 'a');
    await turn(s, id, 'echo first answer', 'first answer');
    const pid = await agentPid(s, id);
    const before = await screenText(s, id);
    assert.match(before, /first answer/);
    const watching = await Viewer.open(s, id, scope);
    await waitFor('the watching viewer shows the screen', async () => normalized(before) === (await watching.shown()));

    const slept = await sleepByHand(s, id);
    assert.equal(slept.status, 200, JSON.stringify(slept.body));
    assert.equal(slept.body.agent.state, 'sleeping');
    const framesAtSleep = watching.frames.length;
    await waitAsleep(s, id, pid);
    assert.deepEqual(hooks(log).filter((h) => h.hook_event_name === 'SessionEnd').map((h) => h.reason), ['prompt_input_exit'], 'ended its own way (Ctrl-C twice), not killed');

    // The server's own screen went on: the agent's goodbye and the shell's prompt are on it.
    let live = '';
    await waitFor('the shell prompt on the live screen', async () => /[$#] ?$/.test((live = await liveScreenText(s, id)))).catch((err: Error) => {
      throw new Error(`${err.message}; live screen:\n${live}`);
    });
    assert.notEqual(live, normalized(before));
    // Shown: the screen as it was, to tend screen, to the viewer that watched, and to a new viewer.
    assert.equal(await screenText(s, id), before);
    assert.equal(watching.dataBytesSince(framesAtSleep), 0, 'no output sent to viewers while asleep');
    assert.equal(await watching.shown(), normalized(before));
    const late = await Viewer.open(s, id, scope);
    assert.equal(await late.shown(), normalized(before));
    assert.ok(late.agentStates().includes('sleeping'));

    // Input wakes it: resumed with its conversation, the prompt delivered once when it is ready.
    const conversation = (await agentOf(s, id)).agentSessionId;
    await send(s, id, 'echo second answer');
    const woke = await waitForAgent(s, id, 'awake with the second answer', (a) => a.state === 'idle' && a.lastTurn?.answer === 'second answer');
    assert.equal(woke.agentSessionId, conversation);
    assert.equal(woke.warning, undefined);
    const events = hooks(log);
    assert.deepEqual(events.filter((h) => h.hook_event_name === 'SessionStart').map((h) => [h.source, h.session_id]), [['startup', conversation], ['resume', conversation]]);
    assert.deepEqual(events.filter((h) => h.hook_event_name === 'UserPromptSubmit').map((h) => h.prompt), ['echo first answer', 'echo second answer']);
    assert.ok(!existsSync(join(s.home, 'agents', id, 'kept-screen.json')), 'the kept screen is gone once awake');
    // Viewers are shown the live screen again.
    await waitFor('the watching viewer shows the answer', async () => /second answer/.test(await watching.shown()));
    assert.ok(watching.agentStates().includes('waking'));
  });

  test('by hand, refused with 409 agent_cannot_sleep while busy, while asking, and outside a shell', async (t) => {
    const scope = useTestScope(t);
    const { s } = startAgentServer(scope, { FAKE_AGENT_DELAY_MS: '300' });
    const id = await startClaude(s, 'a');

    await send(s, id, 'a slow one');
    await waitForAgent(s, id, 'busy', (a) => a.state === 'busy');
    const busy = await sleepByHand(s, id);
    assert.deepEqual([busy.status, busy.body.error?.code], [409, 'agent_cannot_sleep']);
    assert.match(busy.body.error!.message, /busy with a turn/);
    await waitForAgent(s, id, 'idle after the slow turn', (a) => a.state === 'idle', 20_000);

    await send(s, id, 'ask permission');
    await waitForAgent(s, id, 'asking', (a) => a.state === 'needs-permission');
    const asking = await sleepByHand(s, id);
    assert.deepEqual([asking.status, asking.body.error?.code], [409, 'agent_cannot_sleep']);
    assert.match(asking.body.error!.message, /permission/);
    await send(s, id, '1');
    await waitForAgent(s, id, 'idle after the answer', (a) => a.state === 'idle');

    // An agent reported from a session whose program is not a shell: ending it would end the session.
    const bare = await s.newShell(['cat'], { name: 'bare', prompt: /^/ });
    const started = await s.api<AgentEventReply>('POST', `/v1/sessions/${bare}/agent/events?agent=claude&event=SessionStart`, {
      session_id: '7d2a3f9c-0000-4000-8000-0000000000bb', transcript_path: '/nonexistent', cwd: '/', permission_mode: 'default', hook_event_name: 'SessionStart', source: 'startup',
    });
    assert.equal(started.body.agent.state, 'idle');
    const bareSleep = await sleepByHand(s, bare);
    assert.deepEqual([bareSleep.status, bareSleep.body.error?.code], [409, 'agent_cannot_sleep']);
    assert.match(bareSleep.body.error!.message, /not run under a shell/);
    // Nothing was done to either.
    assert.equal((await agentOf(s, id)).state, 'idle');
    assert.equal((await agentOf(s, bare)).state, 'idle');
  });

  test('idle for its sleepAfterMs, it sleeps by itself (never before a first turn); `tend agent wake` brings it back; tend await on it wakes it and answers', async (t) => {
    const scope = useTestScope(t);
    const { s, log } = startAgentServer(scope);
    const id = await startClaude(s, 'a', 1500);
    // Never before its first turn: a conversation with no message cannot be resumed.
    const refused = await sleepByHand(s, id);
    assert.deepEqual([refused.status, refused.body.error?.code], [409, 'agent_cannot_sleep']);
    assert.match(refused.body.error!.message, /no turn yet/);
    await turn(s, id, 'echo something to resume', 'something to resume');
    const pid = await agentPid(s, id);
    await waitForAgent(s, id, 'asleep by itself', (a) => a.state === 'sleeping', 20_000);
    await waitAsleep(s, id, pid);
    const woken = await s.cli(['agent', 'wake', ':a', '--json']);
    assert.equal(woken.code, 0, woken.stderr);
    // Waking, or still sleeping if its end was seen before the sleep had noted it: the wake follows the sleep.
    const reply = JSON.parse(woken.stdout) as AgentActionReply;
    assert.ok(['waking', 'sleeping'].includes(reply.agent.state), woken.stdout);
    await waitForAgent(s, id, 'awake', (a) => a.state === 'idle');
    assert.deepEqual(hooks(log).filter((h) => h.hook_event_name === 'SessionStart').map((h) => h.source), ['startup', 'resume']);
    // Idle again, it sleeps again; an await on it wakes it and answers.
    const again = await agentPid(s, id);
    await waitAsleep(s, id, again);
    const awaited = await s.cli(['await', ':a', '--', 'echo awaited while asleep']);
    assert.deepEqual([awaited.code, awaited.stdout], [0, 'awaited while asleep\n'], awaited.stderr);
    assert.deepEqual(hooks(log).filter((h) => h.hook_event_name === 'UserPromptSubmit').map((h) => h.prompt), ['echo something to resume', 'echo awaited while asleep']);
  });

  test('asleep across a server SIGKILL: still sleeping with the same screen; input wakes it once', async (t) => {
    const scope = useTestScope(t);
    const { s, log } = startAgentServer(scope);
    const id = await startClaude(s, 'a');
    await turn(s, id, 'echo kept across a crash', 'kept across a crash');
    const pid = await agentPid(s, id);
    const before = await screenText(s, id);
    assert.equal((await sleepByHand(s, id)).status, 200);
    await waitAsleep(s, id, pid);

    const status = await s.cli(['server', 'status', '--json']);
    const serverPid = (JSON.parse(status.stdout) as { pid: number }).pid;
    process.kill(serverPid, 'SIGKILL');
    await waitFor('the server gone', () => !isAlive(serverPid));
    const restarted = await s.cli(['server', 'start']);
    assert.equal(restarted.code, 0, restarted.stderr);

    const after = await agentOf(s, id);
    assert.equal(after.state, 'sleeping');
    assert.equal(await screenText(s, id), before);
    const viewer = await Viewer.open(s, id, scope);
    assert.equal(await viewer.shown(), normalized(before));

    await send(s, id, 'echo after the crash');
    await waitForAgent(s, id, 'awake with the answer', (a) => a.state === 'idle' && a.lastTurn?.answer === 'after the crash');
    assert.deepEqual(hooks(log).filter((h) => h.hook_event_name === 'UserPromptSubmit').map((h) => h.prompt), ['echo kept across a crash', 'echo after the crash']);

    // Asleep again, then the session killed: its kept screen's file goes with it.
    const pidAgain = await agentPid(s, id);
    assert.equal((await sleepByHand(s, id)).status, 200);
    await waitAsleep(s, id, pidAgain);
    const killed = await s.cli(['kill', id]);
    assert.equal(killed.code, 0, killed.stderr);
    await waitFor('the kept screen removed with its session', () => !existsSync(join(s.home, 'agents', id, 'kept-screen.json')));
  });

  test('a wake that fails (its conversation is gone): state exited with a warning, the input dropped, never typed into the shell', async (t) => {
    const scope = useTestScope(t);
    const { s } = startAgentServer(scope);
    const id = await startClaude(s, 'a');
    await turn(s, id, 'echo soon gone', 'soon gone');
    const pid = await agentPid(s, id);
    assert.equal((await sleepByHand(s, id)).status, 200);
    await waitAsleep(s, id, pid);
    // The agent's record of the conversation is removed: its resume says it has none and exits.
    const projects = join(s.shellHome, '.claude', 'projects');
    for (const dir of readdirSync(projects)) rmSync(join(projects, dir), { recursive: true, force: true });

    const sent = await s.cli(['send', id, 'touch typed-into-the-shell', '--enter']);
    const failed = await waitForAgent(s, id, 'the wake failed', (a) => a.state === 'exited', 40_000);
    assert.match(failed.warning ?? '', /could not wake Claude Code: .*shell prompt came back/);
    assert.match(failed.warning ?? '', /input typed while it slept \(\d+ writes?\) was dropped, not typed into the shell/);
    assert.notEqual(sent.code, 0, 'the send is told its input did not arrive');
    assert.match(sent.stderr, /could not be woken .*this input was dropped, not typed into the shell/);
    // Viewers see the live screen again: the shell, which never got the input.
    const shown = await screenText(s, id);
    assert.match(shown, /No conversation found/);
    assert.ok(!existsSync(join(s.shellHome, 'typed-into-the-shell')), `the prompt ran in the shell:\n${shown}`);
    // From now on input goes to the shell.
    await send(s, id, 'echo shell-again-$((6*7))');
    await waitFor('the shell runs input again', async () => /shell-again-42/.test(await screenText(s, id)));
  });

  test('an agent that ignores Ctrl-C is ended with SIGTERM; one that ignores that too is left running, idle, with a warning', async (t) => {
    const scope = useTestScope(t);
    const { s } = startAgentServer(scope);
    const server = await s.cli(['server', 'start']);
    assert.equal(server.code, 0, server.stderr);
    const conversation = '7d2a3f9c-0000-4000-8000-0000000000cc';
    const base = { session_id: conversation, transcript_path: '/nonexistent', cwd: '/', permission_mode: 'default' };
    const report = (id: string, event: string, payload: Record<string, unknown>) =>
      s.api<AgentEventReply>('POST', `/v1/sessions/${id}/agent/events?agent=claude&event=${event}`, { ...base, hook_event_name: event, ...payload });
    /** A bash session running `program` in the foreground, reported as an idle Claude with one turn behind it. */
    const stubborn = async (name: string, program: string): Promise<{ id: string; pid: number }> => {
      const id = await s.newShell(['bash'], { name });
      await send(s, id, program);
      const pid = await agentPid(s, id, 'sleep');
      await report(id, 'SessionStart', { source: 'startup' });
      await report(id, 'UserPromptSubmit', { prompt: 'hello' });
      const idle = await report(id, 'Stop', { stop_hook_active: false, last_assistant_message: 'hi', background_tasks: [] });
      assert.equal(idle.body.agent.state, 'idle');
      return { id, pid };
    };

    const deaf = await stubborn('deaf', `sh -c 'trap "" INT; exec sleep 600'`);
    assert.equal((await sleepByHand(s, deaf.id)).status, 200);
    await waitFor('SIGTERM to end it', () => !isAlive(deaf.pid), 20_000);
    await waitFor('the kept screen saved', () => existsSync(join(s.home, 'agents', deaf.id, 'kept-screen.json')));
    assert.equal((await agentOf(s, deaf.id)).state, 'sleeping');

    const deafer = await stubborn('deafer', `sh -c 'trap "" INT TERM; exec sleep 600'`);
    scope.trackPid(deafer.pid);
    assert.equal((await sleepByHand(s, deafer.id)).status, 200);
    const gaveUp = await waitForAgent(s, deafer.id, 'given up', (a) => a.state === 'idle', 30_000);
    assert.match(gaveUp.warning ?? '', /could not put Claude Code to sleep: it still ran \d+ s after 3 Ctrl-C presses and a SIGTERM/);
    assert.ok(isAlive(deafer.pid), 'left running');
    assert.ok(!existsSync(join(s.home, 'agents', deafer.id, 'kept-screen.json')));
  });

  test('a wake caught by a server SIGKILL is finished by the next server, and the input that woke it reaches the agent once', async (t) => {
    const scope = useTestScope(t);
    const { s, log } = startAgentServer(scope);
    const id = await startClaude(s, 'a');
    await turn(s, id, 'echo before the crash', 'before the crash');
    const pid = await agentPid(s, id);
    assert.equal((await sleepByHand(s, id)).status, 200);
    await waitAsleep(s, id, pid);

    // The send waits at the gate while the agent wakes; its server dies under it, and it completes through the next.
    const sending = s.cli(['send', id, 'echo through the crash', '--enter'], { timeoutMs: 120_000 });
    await waitForAgent(s, id, 'waking', (a) => a.state === 'waking', 20_000);
    const serverPid = s.serverPid()!;
    process.kill(serverPid, 'SIGKILL');
    await waitFor('the server gone', () => !isAlive(serverPid));
    const restarted = await s.cli(['server', 'start']);
    assert.equal(restarted.code, 0, restarted.stderr);

    const sent = await sending;
    assert.equal(sent.code, 0, sent.stderr);
    await waitForAgent(s, id, 'awake with the answer', (a) => a.state === 'idle' && a.lastTurn?.answer === 'through the crash', 60_000);
    const events = hooks(log);
    assert.deepEqual(events.filter((h) => h.hook_event_name === 'UserPromptSubmit').map((h) => h.prompt), ['echo before the crash', 'echo through the crash']);
    assert.equal(events.filter((h) => h.hook_event_name === 'SessionStart' && h.source === 'resume').length, 1, 'resumed once');
  });
});
