// `tend hooks install|uninstall|status`, end to end: the real `bin/tend.js`
// with HOME (and the agents' config-dir variables) pointed at a temp dir,
// editing real files. The user's own hooks, settings and layout (2 spaces,
// 4, tabs, CRLF) stay as they were; install is idempotent, uninstall gives
// back the exact original bytes, --print writes nothing, the backup is made
// once, Codex's and Gemini's rules are kept, a broken file is left alone
// with its line and column, and no server is ever started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_FLAVOURS, hookCommand, tendHooksSettings } from '../../src/common/agents/catalogue.js';
import type { AgentKind } from '../../src/protocol/api/agents.js';
import { repoRoot } from '../server/harness.js';
import { useTestScope, type TestScope } from '../support/test-scope.js';

const TEST_TIMEOUT_MS = 120_000;
const CLI_TIMEOUT_MS = 30_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Sandbox {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The hook client path this tend's entries carry (a file named tend-hook, as the real one is). */
  hookClient: string;
  tendHome: string;
  tend(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<Run>;
  file(kind: AgentKind): string;
}

function sandbox(scope: TestScope): Sandbox {
  const home = scope.tempDir('tend-hooks-home-');
  const tendHome = scope.tempDir('tend-hooks-th-');
  const runtime = scope.tempDir('tend-hooks-rt-');
  const hookClient = join(home, 'tend-checkout', 'tend-hook');
  mkdirSync(join(home, 'tend-checkout'));
  writeFileSync(hookClient, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TEND_HOME: tendHome, TEND_RUNTIME_DIR: runtime, TEND_HOOK_CLIENT: hookClient };
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  return {
    home,
    env,
    hookClient,
    tendHome,
    tend: (args, extraEnv = {}) =>
      new Promise((resolve) => {
        execFile(process.execPath, [join(repoRoot, 'bin', 'tend.js'), 'hooks', ...args], { env: { ...env, ...extraEnv }, timeout: CLI_TIMEOUT_MS }, (err, stdout, stderr) => {
          resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
        });
      }),
    file: (kind) => join(home, kind === 'claude' ? '.claude/settings.json' : kind === 'codex' ? '.codex/hooks.json' : '.gemini/settings.json'),
  };
}

function writeSettings(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function ok(r: Run): Run {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** tend's handler commands in a parsed settings object, event by event. */
function tendCommands(parsed: unknown): Record<string, string[]> {
  const settings = parsed as { hooks?: Record<string, Array<{ hooks?: Array<{ command?: string }> }>> };
  const out: Record<string, string[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    const commands = groups.flatMap((g) => (g.hooks ?? []).map((h) => h.command ?? '')).filter((c) => c.includes('tend-hook'));
    if (commands.length > 0) out[event] = commands;
  }
  return out;
}

function expectedCommands(kind: AgentKind, hookClient: string): Record<string, string[]> {
  return Object.fromEntries(AGENT_FLAVOURS[kind].hookEvents.map((e) => [e, [hookCommand(hookClient, kind, e)]]));
}

/** Nothing of a server: TEND_HOME stays empty (no store, no log, no socket). */
function assertNoServer(s: Sandbox): void {
  assert.deepEqual(readdirSync(s.tendHome), [], 'tend hooks starts no server and writes nothing in TEND_HOME');
}

/** A user's Claude settings with their own hooks and other settings, in a given layout. */
function userClaudeSettings(indent: string, eol: string): string {
  const lines = [
    '{',
    `${indent}"model": "opus",`,
    `${indent}"permissions": {"allow": ["Bash(npm test:*)"], "deny": []},`,
    `${indent}"hooks": {`,
    `${indent}${indent}"PreToolUse": [`,
    `${indent}${indent}${indent}{`,
    `${indent}${indent}${indent}${indent}"matcher": "Bash",`,
    `${indent}${indent}${indent}${indent}"hooks": [{"type": "command", "command": "~/bin/check-bash.sh", "timeout": 5}]`,
    `${indent}${indent}${indent}}`,
    `${indent}${indent}],`,
    `${indent}${indent}"Stop": [`,
    `${indent}${indent}${indent}{"hooks": [{"type": "command", "command": "notify-send done"}]}`,
    `${indent}${indent}]`,
    `${indent}},`,
    `${indent}"env": {"FOO": "1e3", "N": 1.50}`,
    '}',
  ];
  return lines.join(eol) + eol;
}

for (const [name, indent, eol] of [['2 spaces', '  ', '\n'], ['4 spaces', '    ', '\n'], ['tabs and CRLF', '\t', '\r\n']] as const) {
  test(`install into a file indented with ${name}: the user's hooks, settings and layout stay, tend's handlers are added in that layout; uninstall gives back the exact bytes`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const s = sandbox(useTestScope(t));
    const file = s.file('claude');
    const original = userClaudeSettings(indent, eol);
    writeSettings(file, original);
    chmodSync(file, 0o640);
    const before = JSON.parse(original) as Record<string, unknown> & { hooks: Record<string, unknown[]> };

    const installed = ok(await s.tend(['install', 'claude']));
    assert.match(installed.stdout, /tend's hooks for Claude Code are installed/);
    const text = readFileSync(file, 'utf8');
    const after = JSON.parse(text) as typeof before;
    // The user's entries first and untouched, tend's group after them; the other settings as they were.
    assert.deepEqual(after.hooks.PreToolUse![0], before.hooks.PreToolUse![0]);
    assert.deepEqual(after.hooks.Stop![0], before.hooks.Stop![0]);
    assert.deepEqual({ ...after, hooks: undefined }, { ...before, hooks: undefined });
    assert.deepEqual(tendCommands(after), expectedCommands('claude', s.hookClient));
    assert.deepEqual(after.hooks.SessionStart, tendHooksSettings(s.hookClient, 'claude').SessionStart);
    // Every line the user wrote is still there (the last line of a list gets a comma, nothing else).
    const lines = new Set(text.split(eol));
    for (const line of original.split(eol)) assert.ok(lines.has(line) || lines.has(`${line},`), `the user's line ${JSON.stringify(line)} is kept`);
    // Written in the file's own layout: its line endings, its indent unit at the right depth.
    if (eol === '\r\n') assert.equal(text.split('\r\n').join('').includes('\n'), false, 'no bare LF in a CRLF file');
    const command = JSON.stringify(hookCommand(s.hookClient, 'claude', 'SessionStart'));
    assert.ok(text.includes(`${eol}${indent.repeat(6)}"command": ${command},${eol}`), `tend's command line at depth 6 in ${JSON.stringify(indent)}:\n${text}`);
    assert.equal(statSync(file).mode & 0o777, 0o640, 'the file keeps its mode');

    const again = ok(await s.tend(['install', 'claude']));
    assert.match(again.stdout, /already installed .*nothing changed/);
    assert.equal(readFileSync(file, 'utf8'), text, 'a second install changes nothing');

    const removed = ok(await s.tend(['uninstall', 'claude']));
    assert.match(removed.stdout, /took out tend's hooks for Claude Code/);
    assert.equal(readFileSync(file, 'utf8'), original, 'install then uninstall gives back the original bytes');
    assertNoServer(s);
  });
}

test('install into a missing file makes it (0600, in a new 0700 dir) with only tend\'s hooks, keeps no backup of nothing, and starts no server', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const configDir = join(s.home, 'config', 'claude');
  const file = join(configDir, 'settings.json');
  const r = ok(await s.tend(['install', 'claude', '--json'], { CLAUDE_CONFIG_DIR: configDir }));
  const result = JSON.parse(r.stdout) as { file: string; created: boolean; backup: string | null; added: string[] };
  assert.equal(result.file, file, '$CLAUDE_CONFIG_DIR/settings.json is the file');
  assert.equal(result.created, true);
  assert.equal(result.backup, null);
  assert.deepEqual(result.added, [...AGENT_FLAVOURS.claude.hookEvents]);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(configDir).mode & 0o777, 0o700);
  const text = readFileSync(file, 'utf8');
  assert.deepEqual(JSON.parse(text), { hooks: tendHooksSettings(s.hookClient, 'claude') });
  assert.ok(text.endsWith('}\n') && text.includes('\n  "hooks": {\n'), 'a new file is written with 2 spaces and a final newline');
  assert.equal(existsSync(`${file}.tend-backup`), false);
  assert.equal(existsSync(s.file('claude')), false, 'not ~/.claude when CLAUDE_CONFIG_DIR is set');
  assertNoServer(s);
});

test('--print shows the change as a diff and writes nothing, for install and uninstall', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  const original = userClaudeSettings('  ', '\n');
  writeSettings(file, original);
  const mtime = statSync(file).mtimeMs;

  const shown = ok(await s.tend(['install', 'claude', '--print']));
  assert.match(shown.stdout, new RegExp(`^--- ${file} \\(as it is\\)\\n\\+\\+\\+ ${file} \\(after tend hooks install claude\\)\\n@@ -\\d+,\\d+ \\+\\d+,\\d+ @@\\n`));
  assert.ok(shown.stdout.includes(`\n+${' '.repeat(12)}"command": ${JSON.stringify(hookCommand(s.hookClient, 'claude', 'Stop'))},\n`), shown.stdout);
  const userStop = '      {"hooks": [{"type": "command", "command": "notify-send done"}]}';
  assert.ok(shown.stdout.includes(`\n-${userStop}\n+${userStop},\n`), 'the line that gains a comma shows as taken out and put in');
  assert.match(shown.stdout, /nothing was written/);
  assert.equal(readFileSync(file, 'utf8'), original);
  assert.equal(statSync(file).mtimeMs, mtime);
  assert.equal(existsSync(`${file}.tend-backup`), false, 'no backup for a change not made');

  const json = JSON.parse(ok(await s.tend(['install', 'claude', '--print', '--json'])).stdout) as { changed: boolean; written: boolean; diff: string };
  assert.equal(json.changed, true);
  assert.equal(json.written, false);
  assert.equal(json.diff, shown.stdout.slice(0, shown.stdout.indexOf('(shown only')));
  assert.equal(readFileSync(file, 'utf8'), original);

  ok(await s.tend(['install', 'claude']));
  const installed = readFileSync(file, 'utf8');
  const unshown = ok(await s.tend(['uninstall', 'claude', '-p']));
  assert.ok(unshown.stdout.includes(`\n-${' '.repeat(12)}"command": ${JSON.stringify(hookCommand(s.hookClient, 'claude', 'Stop'))},\n`), unshown.stdout);
  assert.equal(readFileSync(file, 'utf8'), installed, 'uninstall --print writes nothing');
});

test('the backup is the file as it was before tend first changed it, kept once and never overwritten', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  const original = '{"model": "sonnet"}\n';
  writeSettings(file, original);
  chmodSync(file, 0o600);
  const first = JSON.parse(ok(await s.tend(['install', 'claude', '--json'])).stdout) as { backup: string; backupCreated: boolean };
  assert.equal(first.backup, `${file}.tend-backup`);
  assert.equal(first.backupCreated, true);
  assert.equal(readFileSync(first.backup, 'utf8'), original);
  assert.equal(statSync(first.backup).mode & 0o777, 0o600, 'the backup is as private as the file');

  const second = ok(await s.tend(['uninstall', 'claude']));
  assert.ok(second.stdout.includes(`backup of the file before tend's first edit of it: ${file}.tend-backup`), second.stdout);
  ok(await s.tend(['install', 'claude']));
  const third = JSON.parse(ok(await s.tend(['uninstall', 'claude', '--json'])).stdout) as { backup: string; backupCreated: boolean };
  assert.equal(third.backupCreated, false);
  assert.equal(readFileSync(first.backup, 'utf8'), original, 'later changes leave the backup as it was');
  // A one-line file stays on one line.
  assert.equal(readFileSync(file, 'utf8'), original);
});

test('a settings file that is a symbolic link (a dotfiles checkout) is written through the link, which stays', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  const target = join(s.home, 'dotfiles', 'claude-settings.json');
  const original = '{\n  "model": "opus"\n}\n';
  writeSettings(target, original);
  mkdirSync(join(file, '..'), { recursive: true });
  symlinkSync(target, file);
  ok(await s.tend(['install', 'claude']));
  assert.ok(lstatSync(file).isSymbolicLink(), 'the link is still a link');
  assert.equal(readlinkSync(file), target);
  assert.deepEqual(tendCommands(JSON.parse(readFileSync(target, 'utf8'))), expectedCommands('claude', s.hookClient));
  assert.equal(readFileSync(`${file}.tend-backup`, 'utf8'), original);
  ok(await s.tend(['uninstall', 'claude']));
  assert.equal(readFileSync(target, 'utf8'), original);
  assert.deepEqual(readdirSync(join(s.home, 'dotfiles')), ['claude-settings.json'], 'no temporary file left beside it');
});

test('a handler of another tend (a moved checkout) is pointed at this one, once per event; status says it is stale first', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  writeSettings(file, userClaudeSettings('  ', '\n'));
  const oldClient = join(s.home, 'old checkout', 'holder', 'build', 'tend-hook');
  ok(await s.tend(['install', 'claude'], { TEND_HOOK_CLIENT: oldClient }));
  assert.equal(tendCommands(JSON.parse(readFileSync(file, 'utf8'))).Stop![0], hookCommand(oldClient, 'claude', 'Stop'));

  const status = JSON.parse(ok(await s.tend(['status', 'claude', '--json'])).stdout) as Array<{ state: string; stale: Array<{ event: string; command: string }>; notes: string[] }>;
  assert.equal(status[0]!.state, 'not-installed');
  assert.equal(status[0]!.stale.length, AGENT_FLAVOURS.claude.hookEvents.length);
  assert.ok(status[0]!.notes.some((n) => n.includes(oldClient) && n.includes('tend hooks install claude')), status[0]!.notes.join('\n'));

  const r = JSON.parse(ok(await s.tend(['install', 'claude', '--json'])).stdout) as { replaced: string[]; added: string[] };
  assert.deepEqual(r.replaced, [...AGENT_FLAVOURS.claude.hookEvents]);
  assert.deepEqual(r.added, []);
  const after = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, unknown[]> };
  assert.deepEqual(tendCommands(after), expectedCommands('claude', s.hookClient), 'one handler per event, this tend\'s');
  assert.equal(after.hooks.Stop![0] !== undefined && JSON.stringify(after.hooks.Stop![0]).includes('notify-send done'), true, "the user's Stop handler stays");
  assert.equal((JSON.parse(ok(await s.tend(['status', 'claude', '--json'])).stdout) as Array<{ state: string }>)[0]!.state, 'installed');
});

test('codex: $CODEX_HOME/hooks.json, a root of only description and hooks, the trust note; a root with anything else is refused untouched', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const codexHome = join(s.home, 'codex-home');
  const file = join(codexHome, 'hooks.json');
  const original = '{\n  "description": "my hooks",\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]\n  }\n}\n';
  writeSettings(file, original);
  const r = ok(await s.tend(['install', 'codex'], { CODEX_HOME: codexHome }));
  assert.match(r.stdout, /note: Codex runs a new or changed hook only after it is trusted: run `codex`, type \/hooks/);
  assert.match(r.stdout, /Moving tend's checkout changes the hooks' path: then run `tend hooks install codex` again and trust them again/);
  const after = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(after), ['description', 'hooks'], 'nothing else at the root');
  assert.deepEqual(tendCommands(after), expectedCommands('codex', s.hookClient));
  const status = ok(await s.tend(['status', 'codex'], { CODEX_HOME: codexHome }));
  assert.match(status.stdout, new RegExp(`^codex: installed \\(${file}\\)\\n.*trusted in Codex's /hooks screen \\(run \`codex\`, type /hooks\\)`));
  ok(await s.tend(['uninstall', 'codex'], { CODEX_HOME: codexHome }));
  assert.equal(readFileSync(file, 'utf8'), original);

  const refused = '{"hooks": {}, "model": "o3"}\n';
  writeFileSync(file, refused);
  const no = await s.tend(['install', 'codex'], { CODEX_HOME: codexHome });
  assert.equal(no.code, 1);
  assert.match(no.stderr, /^tend: .*hooks\.json holds "model" at its root, and Codex refuses a hooks file with anything there but "description" and "hooks": take it out, then install again; nothing was changed\n$/);
  assert.equal(readFileSync(file, 'utf8'), refused);
  assert.match(ok(await s.tend(['status', 'codex'], { CODEX_HOME: codexHome })).stdout, /Codex refuses this file: it holds "model" at its root/);
});

test('gemini: install turns on tools.enableHooks when absent and says so; uninstall leaves it and says so; a false one is left with a warning', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('gemini');
  writeSettings(file, '{\n    "theme": "Dracula",\n    "tools": {\n        "sandbox": false\n    }\n}\n');
  assert.match(ok(await s.tend(['status', 'gemini'])).stdout, /^gemini: not installed .*\n {2}hooks are not enabled: .* does not set tools.enableHooks/);
  const r = ok(await s.tend(['install', 'gemini']));
  assert.match(r.stdout, /turned on hooks \("tools": \{"enableHooks": true\}\), without which Gemini CLI runs none/);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes('\n        "sandbox": false,\n        "enableHooks": true\n    },'), text);
  const after = JSON.parse(text) as { theme: string; tools: Record<string, boolean>; hooks: Record<string, Array<{ hooks: Array<{ timeout: number }> }>> };
  assert.deepEqual(after.tools, { sandbox: false, enableHooks: true });
  assert.deepEqual(tendCommands(after), expectedCommands('gemini', s.hookClient));
  assert.equal(after.hooks.AfterAgent![0]!.hooks[0]!.timeout, tendHooksSettings(s.hookClient, 'gemini').AfterAgent![0]!.hooks[0]!.timeout, "Gemini's timeout, in its unit (ms)");
  assert.match(ok(await s.tend(['status', 'gemini'])).stdout, /^gemini: installed .*\n {2}hooks are enabled \(tools.enableHooks is true\)/);

  const u = ok(await s.tend(['uninstall', 'gemini']));
  assert.match(u.stdout, /left "tools": \{"enableHooks": true\} as it is/);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { theme: 'Dracula', tools: { sandbox: false, enableHooks: true } });

  writeFileSync(file, '{"tools": {"enableHooks": false}}');
  const off = JSON.parse(ok(await s.tend(['install', 'gemini', '--json'])).stdout) as { geminiHooks: string; notes: string[] };
  assert.equal(off.geminiHooks, 'off');
  assert.ok(off.notes.some((n) => /tools.enableHooks is not true .* runs no hooks, tend's included; tend leaves your setting/.test(n)), off.notes.join('\n'));
  assert.deepEqual((JSON.parse(readFileSync(file, 'utf8')) as { tools: object }).tools, { enableHooks: false }, 'the user\'s false is left');
});

test('a file that is not JSON, JSON with comments, or of a shape tend cannot edit is left untouched, with a message that says where', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  const cases: Array<[string, RegExp]> = [
    ['{\n  "model": "opus",\n  "hooks": {},\n}\n', /settings\.json is not valid JSON: a trailing comma before \} \(line 4, column 1\); Claude Code cannot read it either: fix it, then try again/],
    ['{\n  "model": \'opus\'\n}\n', /is not valid JSON: unexpected ' \(JSON strings take double quotes\) where a value should be \(line 2, column 12\)/],
    ['{\n  // my model\n  "model": "opus"\n}\n', /settings\.json has a comment \(line 2, column 3\): it is JSON with comments, and tend will not rewrite a file with comments; take them out, or add tend's hooks by hand/],
    ['["not", "settings"]\n', /settings\.json \(line 1, column 1\) holds an array, not an object of settings/],
    ['{"hooks": ["Stop"]}\n', /"hooks" in .*settings\.json \(line 1, column 11\) is an array, not an object of events/],
    ['{"hooks": {"Stop": {"hooks": []}}}\n', /the hook event "Stop" in .*settings\.json \(line 1, column 20\) is an object, not an array of matcher groups/],
  ];
  for (const [text, said] of cases) {
    writeSettings(file, text);
    for (const action of ['install', 'uninstall']) {
      const r = await s.tend([action, 'claude']);
      assert.equal(r.code, 1, `${action} of ${JSON.stringify(text)}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr.trimEnd(), said);
      assert.match(r.stderr, /; nothing was changed\n$/);
      assert.equal(r.stderr.split('\n').length, 2, 'one line, no stack trace');
      assert.equal(readFileSync(file, 'utf8'), text, 'the file is untouched');
      assert.equal(existsSync(`${file}.tend-backup`), false);
    }
    const status = await s.tend(['status', 'claude', '--json']);
    assert.equal(status.code, 1);
    assert.match((JSON.parse(status.stdout) as Array<{ error: string }>)[0]!.error, said);
  }
  mkdirSync(s.file('codex'), { recursive: true });
  const dir = await s.tend(['install', 'codex', '--json']);
  assert.equal(dir.code, 1);
  assert.match((JSON.parse(dir.stderr) as { error: { message: string } }).error.message, /hooks\.json is a directory, not a settings file/);
});

test('--json: install, uninstall and status say what changed, the file and the backup, in one object (status: one per agent)', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const file = s.file('claude');
  writeSettings(file, '{}\n');
  const installed = JSON.parse(ok(await s.tend(['install', 'claude', '-j'])).stdout) as Record<string, unknown>;
  assert.deepEqual(installed, {
    action: 'install', agent: 'claude', file, changed: true, written: true, existed: true, created: false,
    backup: `${file}.tend-backup`, backupCreated: true, added: [...AGENT_FLAVOURS.claude.hookEvents], replaced: [], removed: [], staleCommands: [], notes: [],
  });
  const removed = JSON.parse(ok(await s.tend(['uninstall', 'claude', '--json'])).stdout) as Record<string, unknown>;
  assert.deepEqual(removed, {
    action: 'uninstall', agent: 'claude', file, changed: true, written: true, existed: true, created: false,
    backup: `${file}.tend-backup`, backupCreated: false, added: [], replaced: [], removed: [...AGENT_FLAVOURS.claude.hookEvents], staleCommands: [], notes: [],
  });
  assert.equal(readFileSync(file, 'utf8'), '{}\n');

  // Partly installed: one event's handler taken out by hand.
  ok(await s.tend(['install', 'claude']));
  const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, unknown> };
  delete settings.hooks.Stop;
  writeFileSync(file, JSON.stringify(settings, null, 2));
  const status = JSON.parse(ok(await s.tend(['status', '--json'])).stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(status.map((r) => r.agent), ['claude', 'codex', 'gemini'], 'every agent when none is named');
  assert.deepEqual({ ...status[0], notes: undefined }, {
    agent: 'claude', file, hookClient: s.hookClient, exists: true, state: 'partly',
    installed: AGENT_FLAVOURS.claude.hookEvents.filter((e) => e !== 'Stop'), missing: ['Stop'], stale: [], refusedKeys: [], enableHooks: null, notes: undefined,
  });
  assert.deepEqual(status[0]!.notes, ["`tend agent claude` passes tend's hooks to the Claude Code it starts without them; a claude you start yourself reports to tend only with them installed"]);
  assert.equal(status[1]!.state, 'not-installed');
  assert.equal(status[1]!.exists, false);
  assert.equal(status[2]!.enableHooks, 'absent');
  assert.match(ok(await s.tend(['status', 'claude'])).stdout, /^claude: partly installed, missing Stop \(/);
  assertNoServer(s);
});

test('the command line: an unknown agent or action suggests the nearest, install takes one agent, --print is not for status', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const agent = await s.tend(['install', 'cluade']);
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /^tend: no agent "cluade" \(did you mean claude\?\); tend knows claude, codex and gemini\n$/);
  const action = await s.tend(['instal', 'claude']);
  assert.equal(action.code, 2);
  assert.match(action.stderr, /^tend: no action "instal" \(did you mean install\?\)/);
  assert.equal((await s.tend(['install'])).code, 2);
  assert.equal((await s.tend(['install', 'claude', 'codex'])).code, 2);
  assert.equal((await s.tend(['status', '--print'])).code, 2);
  const help = ok(await s.tend(['install', '--help']));
  assert.match(help.stdout, /^tend hooks install\|uninstall\|status \[claude\|codex\|gemini\.\.\.\]/);
  assert.match(help.stdout, /-p, --print +show the change/);
  assert.equal(existsSync(s.file('claude')), false);
  assertNoServer(s);
});
