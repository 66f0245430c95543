// The fake agent in a real tend session (real server, holder and PTY), driven
// by the real CLI: its hooks come from the files the real agents read, run
// with their payloads at their moments, and it asks, is interrupted, exits
// and resumes the way tend will see the real ones do.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer, type ControlServer } from '../../control/control-server.js';
import { useTestScope, type TestScope } from '../test-scope.js';
import { AGENT_FLAVOURS, shQuote } from '../../../src/common/agents/catalogue.js';
import type { ScreenTextReply, SessionInfo } from '../../../src/protocol/api/index.js';
import { installFakeAgents } from './install-fake-agents.js';

interface LoggedHook {
  /** The variables the hook saw, in the order asked for. */
  vars: string[];
  payload: Record<string, any>;
}

/** A handler that appends one line per call: the named variables, then the payload, tab-separated (one write, so calls never interleave). */
function logCommand(log: string, vars: string[]): string {
  const fields = [...vars.map((v) => `"$${v}"`), '"$(cat)"'].join(' ');
  return `printf '${vars.map(() => '%s\\t').join('')}%s\\n' ${fields} >> ${shQuote(log)}`;
}

function readLog(log: string): LoggedHook[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const parts = line.split('\t');
      return { vars: parts.slice(0, -1), payload: JSON.parse(parts[parts.length - 1] as string) };
    });
}

function eventsIn(log: string): string[] {
  return readLog(log).map((h) => h.payload.hook_event_name as string);
}

async function waitForEvent(log: string, event: string, count = 1): Promise<LoggedHook[]> {
  return waitFor(`${count} × ${event} in the hook log (has: ${eventsIn(log).join(', ')})`, () => {
    const found = readLog(log).filter((h) => h.payload.hook_event_name === event);
    return found.length >= count ? found : null;
  });
}

/** One matcher group per event, each running `command`. */
function hooksFor(events: readonly string[], command: string, timeout: number): Record<string, unknown> {
  return Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: 'command', command, timeout }] }]]));
}

interface AgentServer {
  s: ControlServer;
  dir: string;
}

function startAgentServer(scope: TestScope): AgentServer {
  const dir = scope.tempDir('tend-fake-agent-');
  const agents = installFakeAgents(dir);
  // Every agent notes what it did here: a failed wait says it.
  const s = startControlServer({ ...agents.env, FAKE_AGENT_TRACE: join(dir, 'agents.trace') });
  scope.defer(() => s.dispose());
  return { s, dir };
}

async function startAgent(s: ControlServer, argv: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<string> {
  const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const r = await s.cli(['new', '--json', '--size', '100x30', '--cwd', opts.cwd, ...envArgs, '--', ...argv]);
  assert.equal(r.code, 0, r.stderr);
  const id = (JSON.parse(r.stdout) as { id: string }).id;
  await s.holderPids();
  return id;
}

async function send(s: ControlServer, id: string, ...args: string[]): Promise<void> {
  const r = await s.cli(['send', id, ...args]);
  assert.equal(r.code, 0, r.stderr);
}

/** The screen's text through the API: a CLI process per look is too slow to see a hint that shows for 2 s on a loaded machine. */
async function screenOf(s: ControlServer, id: string): Promise<string> {
  const r = await s.api<ScreenTextReply>('GET', `/v1/sessions/${id}/screen`);
  return r.status === 200 ? r.body.text : '';
}

async function waitForScreen(s: ControlServer, id: string, pattern: RegExp): Promise<string> {
  let last = '';
  await waitFor(`${pattern} on the screen of ${id}`, async () => pattern.test((last = await screenOf(s, id)))).catch((err: Error) => {
    const traceFile = s.env.FAKE_AGENT_TRACE;
    const trace = traceFile !== undefined && existsSync(traceFile) ? readFileSync(traceFile, 'utf8') : '';
    throw new Error(`${err.message}; screen:\n${last}\nwhat the agents did:\n${trace}`);
  });
  return last;
}

async function waitForExit(s: ControlServer, id: string): Promise<SessionInfo> {
  return waitFor(`session ${id} to exit`, async () => {
    const r = await s.api<SessionInfo>('GET', `/v1/sessions/${id}`);
    return r.status === 200 && r.body.status === 'exited' ? r.body : null;
  });
}

const CLAUDE_EVENTS = AGENT_FLAVOURS.claude.hookEvents;

describe('the fake agent', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('claude: hooks from the user settings and --settings merge, an identical one runs once, with the real payloads around a turn', async (t) => {
    const scope = useTestScope(t);
    const { s, dir } = startAgentServer(scope);
    const log = join(dir, 'hooks.log');
    const userLog = join(dir, 'user-stop.log');
    const project = join(dir, 'my project');
    mkdirSync(project);
    const command = logCommand(log, ['TEND_SESSION', 'CLAUDE_CODE_SESSION_ID']);
    const settings = join(dir, 'tend-settings.json');
    writeFileSync(settings, JSON.stringify({ hooks: hooksFor(CLAUDE_EVENTS, command, 10) }));
    // The user's own file: the same handler as --settings (runs once), and one of their own (runs too).
    mkdirSync(join(s.shellHome, '.claude'), { recursive: true });
    writeFileSync(
      join(s.shellHome, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ matcher: '', hooks: [{ type: 'command', command }] }],
          Stop: [{ hooks: [{ type: 'command', command: logCommand(userLog, []) }] }],
        },
      }),
    );
    const conversation = randomUUID();
    const id = await startAgent(s, ['claude', '--settings', settings, '--session-id', conversation], { cwd: project });

    const [start] = await waitForEvent(log, 'SessionStart');
    await waitForScreen(s, id, new RegExp(`Fake Claude Code · session ${conversation}[\\s\\S]*^> ?$`, 'm'));
    await send(s, id, 'echo hi', '--enter');
    const [stop] = await waitForEvent(log, 'Stop');
    await waitForScreen(s, id, /^⏺ hi$/m);

    assert.deepEqual(eventsIn(log), ['SessionStart', 'UserPromptSubmit', 'Stop']);
    const [submit] = readLog(log).filter((h) => h.payload.hook_event_name === 'UserPromptSubmit');
    const transcript = join(s.shellHome, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), `${conversation}.jsonl`);
    const common = { session_id: conversation, transcript_path: transcript, cwd: project, permission_mode: 'default' };
    assert.deepEqual(start?.payload, { ...common, hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(typeof submit?.payload.prompt_id, 'string');
    assert.deepEqual(submit?.payload, { ...common, hook_event_name: 'UserPromptSubmit', prompt_id: submit?.payload.prompt_id, prompt: 'echo hi' });
    assert.deepEqual(stop?.payload, {
      ...common,
      hook_event_name: 'Stop',
      prompt_id: submit?.payload.prompt_id,
      stop_hook_active: false,
      last_assistant_message: 'hi',
      background_tasks: [],
      session_crons: [],
    });
    // Hooks run with the agent's environment (tend's TEND_SESSION reaches them) plus Claude's session id.
    for (const hook of readLog(log)) assert.deepEqual(hook.vars, [id, conversation]);
    assert.equal(readLog(userLog).length, 1, "the user's own Stop hook ran beside tend's");
    assert.ok(existsSync(transcript), 'the conversation is written where Claude writes it');
  });

  test('claude: a permission question with its Notification, an interrupt with no Stop, Ctrl-C twice to exit, and resume by id', async (t) => {
    const scope = useTestScope(t);
    const { s, dir } = startAgentServer(scope);
    const log = join(dir, 'hooks.log');
    const settings = join(dir, 'tend-settings.json');
    writeFileSync(settings, JSON.stringify({ hooks: hooksFor(CLAUDE_EVENTS, logCommand(log, []), 10) }));
    const conversation = randomUUID();
    const id = await startAgent(s, ['claude', '--session-id', conversation, '--settings', settings], { cwd: dir, env: { FAKE_AGENT_NOTIFY_MS: '300' } });
    await waitForEvent(log, 'SessionStart');
    await waitForScreen(s, id, /^> ?$/m);

    await send(s, id, 'ask for permission', '--enter');
    const asking = await waitForScreen(s, id, /Do you want to proceed\?\n ❯ 1\. Yes\n {3}2\. No/);
    assert.match(asking, AGENT_FLAVOURS.claude.permissionPrompt, "tend's catalogue knows the question");
    const [request] = await waitForEvent(log, 'PermissionRequest');
    assert.deepEqual([request?.payload.tool_name, request?.payload.tool_input.command, request?.payload.permission_suggestions], ['Bash', 'ls', []]);
    const [notice] = await waitForEvent(log, 'Notification');
    assert.deepEqual([notice?.payload.notification_type, notice?.payload.prompt_id], ['permission_prompt', request?.payload.prompt_id]);
    await send(s, id, '1');
    await waitForEvent(log, 'Stop');
    const answered = await waitForScreen(s, id, /^⏺ You said: ask for permission$/m);
    assert.doesNotMatch(answered, /Do you want to proceed/, 'the question is gone once answered');
    assert.deepEqual(eventsIn(log).slice(1), ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Notification', 'PostToolUse', 'Stop']);

    await send(s, id, 'a slow answer', '--enter');
    await waitForEvent(log, 'UserPromptSubmit', 2);
    await send(s, id, '--keys', 'Escape');
    const interrupted = await waitForScreen(s, id, /⎿ {2}Interrupted by user\n\n> ?$/m);
    assert.match(interrupted, AGENT_FLAVOURS.claude.interruptedMark);
    await send(s, id, 'echo after', '--enter');
    await waitForEvent(log, 'Stop', 2);
    const stops = readLog(log).filter((h) => h.payload.hook_event_name === 'Stop');
    assert.deepEqual(
      stops.map((h) => h.payload.last_assistant_message),
      ['You said: ask for permission', 'after'],
      'the interrupted turn fired no Stop',
    );

    await send(s, id, '--keys', 'C-c');
    await waitForScreen(s, id, /Press Ctrl-C again to exit/);
    // Two at once: the hint's 2 s may have passed on a loaded machine, and then the first only arms it again.
    await send(s, id, '--keys', 'C-c,C-c');
    const [end] = await waitForEvent(log, 'SessionEnd');
    assert.deepEqual([end?.payload.reason, end?.payload.session_id], ['prompt_input_exit', conversation]);
    assert.equal((await waitForExit(s, id)).exitCode, 0);

    const resumed = await startAgent(s, ['claude', '--resume', conversation, '--settings', settings], { cwd: dir });
    await waitForScreen(s, resumed, /Resumed conversation\n> ask for permission\n⏺ You said: ask for permission\n> a slow answer\n> echo after\n⏺ after\n/);
    const starts = await waitForEvent(log, 'SessionStart', 2);
    assert.deepEqual([starts[1]?.payload.source, starts[1]?.payload.session_id], ['resume', conversation]);

    const unknown = randomUUID();
    const missing = await startAgent(s, ['claude', '--resume', unknown], { cwd: dir });
    await waitForScreen(s, missing, new RegExp(`No conversation found with session ID: ${unknown}`));
    assert.equal((await waitForExit(s, missing)).exitCode, 1);
  });

  test("claude: a failed turn fires StopFailure and no Stop, Stop reports a background task, SIGTERM ends it with SessionEnd; a user's disableAllHooks silences all", async (t) => {
    const scope = useTestScope(t);
    const { s, dir } = startAgentServer(scope);
    const log = join(dir, 'hooks.log');
    const settings = join(dir, 'tend-settings.json');
    writeFileSync(settings, JSON.stringify({ hooks: hooksFor(CLAUDE_EVENTS, logCommand(log, []), 10) }));
    const id = await startAgent(s, ['claude', '--settings', settings], { cwd: dir, env: { FAKE_AGENT_BALLAST_MB: '64' } });
    await waitForEvent(log, 'SessionStart');
    await waitForScreen(s, id, /^> ?$/m);

    await send(s, id, 'this one will fail', '--enter');
    const [failure] = await waitForEvent(log, 'StopFailure');
    assert.equal(failure?.payload.error, 'rate_limit');
    assert.match(failure?.payload.last_assistant_message as string, /^API Error: 429/);
    assert.equal(typeof failure?.payload.error_details, 'string');
    await send(s, id, 'start a background job', '--enter');
    const [stop] = await waitForEvent(log, 'Stop');
    assert.deepEqual(
      (stop?.payload.background_tasks as Array<{ status: string }>).map((task) => task.status),
      ['running'],
    );
    assert.deepEqual(eventsIn(log), ['SessionStart', 'UserPromptSubmit', 'StopFailure', 'UserPromptSubmit', 'Stop'], 'the failed turn fired no Stop');

    // The ballast is memory it really holds: a bench measures what ending the agent frees.
    const info = (await s.api<SessionInfo>('GET', `/v1/sessions/${id}`)).body;
    const anonKb = Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${info.pid}/status`, 'utf8'))?.[1]);
    assert.ok(anonKb >= 64 * 1024, `resident anonymous memory ${anonKb} kB holds the 64 MB ballast`);
    process.kill(info.pid as number, 'SIGTERM');
    const [end] = await waitForEvent(log, 'SessionEnd');
    assert.equal(end?.payload.reason, 'other');
    await waitForExit(s, id);

    mkdirSync(join(s.shellHome, '.claude'), { recursive: true });
    writeFileSync(join(s.shellHome, '.claude', 'settings.json'), JSON.stringify({ disableAllHooks: true }));
    const silenced = await startAgent(s, ['claude', '--settings', settings], { cwd: dir });
    await waitForScreen(s, silenced, /^> ?$/m);
    await send(s, silenced, 'echo quiet', '--enter');
    await waitForScreen(s, silenced, /^⏺ quiet$/m);
    assert.equal(readLog(log).length, 6, 'no hook ran with disableAllHooks set');
  });

  test("gemini and codex read hooks from their own files: Gemini's only when enabled, Codex's only when trusted", async (t) => {
    const scope = useTestScope(t);
    const { s, dir } = startAgentServer(scope);

    const geminiLog = join(dir, 'gemini.log');
    mkdirSync(join(s.shellHome, '.gemini'), { recursive: true });
    writeFileSync(
      join(s.shellHome, '.gemini', 'settings.json'),
      JSON.stringify({ tools: { enableHooks: true }, hooks: hooksFor(AGENT_FLAVOURS.gemini.hookEvents, logCommand(geminiLog, ['GEMINI_SESSION_ID']), 10_000) }),
    );
    const gemini = await startAgent(s, ['gemini'], { cwd: dir });
    await waitForEvent(geminiLog, 'SessionStart');
    await waitForScreen(s, gemini, /^> ?$/m);
    await send(s, gemini, 'echo yo', '--enter');
    const [after] = await waitForEvent(geminiLog, 'AfterAgent');
    const geminiId = after?.payload.session_id as string;
    assert.equal(typeof after?.payload.timestamp, 'string');
    assert.deepEqual(
      { ...after?.payload, timestamp: null },
      { session_id: geminiId, transcript_path: after?.payload.transcript_path, cwd: dir, hook_event_name: 'AfterAgent', timestamp: null, prompt: 'echo yo', prompt_response: 'yo', stop_hook_active: false },
    );
    assert.deepEqual(eventsIn(geminiLog), ['SessionStart', 'BeforeAgent', 'AfterAgent']);
    for (const hook of readLog(geminiLog)) assert.deepEqual(hook.vars, [geminiId]);
    // A project that turns hooks off wins over the user's settings.
    const quietProject = join(dir, 'quiet');
    mkdirSync(join(quietProject, '.gemini'), { recursive: true });
    writeFileSync(join(quietProject, '.gemini', 'settings.json'), JSON.stringify({ tools: { enableHooks: false } }));
    const quiet = await startAgent(s, ['gemini'], { cwd: quietProject });
    await waitForScreen(s, quiet, /^> ?$/m);
    await send(s, quiet, 'echo hush', '--enter');
    await waitForScreen(s, quiet, /^✦ hush$/m);
    assert.deepEqual(eventsIn(geminiLog), ['SessionStart', 'BeforeAgent', 'AfterAgent'], 'no hook ran where hooks are off');

    const codexLog = join(dir, 'codex.log');
    const codexHome = join(dir, 'codex-home');
    mkdirSync(codexHome);
    writeFileSync(
      join(codexHome, 'hooks.json'),
      JSON.stringify({ description: 'tend', hooks: hooksFor(AGENT_FLAVOURS.codex.hookEvents, logCommand(codexLog, []), 10) }),
    );
    const untrusted = await startAgent(s, ['codex'], { cwd: dir, env: { CODEX_HOME: codexHome } });
    await waitForScreen(s, untrusted, /^› ?$/m);
    await send(s, untrusted, 'echo unseen', '--enter');
    await waitForScreen(s, untrusted, /^• unseen$/m);
    assert.deepEqual(readLog(codexLog), [], 'hooks not yet trusted in /hooks do not run');

    const trusted = await startAgent(s, ['codex'], { cwd: dir, env: { CODEX_HOME: codexHome, FAKE_CODEX_TRUST_HOOKS: '1' } });
    await waitForEvent(codexLog, 'SessionStart');
    await waitForScreen(s, trusted, /^› ?$/m);
    await send(s, trusted, 'echo two', '--enter');
    const [stop] = await waitForEvent(codexLog, 'Stop');
    const [submit] = readLog(codexLog).filter((h) => h.payload.hook_event_name === 'UserPromptSubmit');
    const codexId = stop?.payload.session_id as string;
    assert.deepEqual(stop?.payload, {
      session_id: codexId,
      turn_id: submit?.payload.turn_id,
      transcript_path: null,
      cwd: dir,
      model: stop?.payload.model,
      permission_mode: 'default',
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'two',
    });
    assert.equal(typeof submit?.payload.turn_id, 'string');

    await send(s, trusted, '--keys', 'C-c');
    await waitForScreen(s, trusted, /Press Ctrl\+C again to quit/);
    await send(s, trusted, '--keys', 'C-c,C-c');
    await waitForScreen(s, trusted, new RegExp(`To continue this session, run codex resume ${codexId}`));
    const resumed = await startAgent(s, ['codex', 'resume', codexId], { cwd: dir, env: { CODEX_HOME: codexHome, FAKE_CODEX_TRUST_HOOKS: '1' } });
    await waitForScreen(s, resumed, /Resumed conversation\n› echo two\n• two\n/);
    const starts = await waitForEvent(codexLog, 'SessionStart', 2);
    assert.deepEqual([starts[1]?.payload.source, starts[1]?.payload.session_id], ['resume', codexId]);
  });
});
