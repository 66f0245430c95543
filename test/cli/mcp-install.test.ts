// `tend mcp install|uninstall|status`, end to end: the real `bin/tend.js`
// with HOME (and CLAUDE_CONFIG_DIR, CODEX_HOME) pointed at a temp dir,
// editing real files, no agent program needed. The entry is written as each
// agent documents it, the rest of the file keeps its bytes, install is
// idempotent, uninstall gives back the original bytes, --print writes
// nothing, a stale entry is pointed here, a file tend will not edit is left
// untouched with one clear line, and the command written really starts
// `tend mcp`: the MCP SDK's client spawns it with the written env and lists
// its tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { AgentKind } from '../../src/protocol/api/agents.js';
import { MCP_TOOLS } from '../../src/cli/mcp/mcp-server.js';
import { repoRoot, startTestServer } from '../server/harness.js';
import { OTHER_USER, makeReadOnlyForChild, readableByAnotherUser, runsAsRoot } from '../support/as-another-user.js';
import { useTestScope, type TestScope } from '../support/test-scope.js';

const TEST_TIMEOUT_MS = 120_000;
const CLI_TIMEOUT_MS = 30_000;
const KINDS: readonly AgentKind[] = ['claude', 'codex', 'gemini'];
const TEND_JS = join(repoRoot, 'bin', 'tend.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Sandbox {
  home: string;
  tendHome: string;
  runtime: string;
  env: NodeJS.ProcessEnv;
  tend(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<Run>;
  file(kind: AgentKind): string;
}

function sandbox(scope: TestScope, tend?: { home: string; runtime: string }): Sandbox {
  const home = scope.tempDir('tend-mcpi-home-');
  const tendHome = tend?.home ?? scope.tempDir('tend-mcpi-th-');
  const runtime = tend?.runtime ?? scope.tempDir('tend-mcpi-rt-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TEND_HOME: tendHome, TEND_RUNTIME_DIR: runtime };
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  return {
    home,
    tendHome,
    runtime,
    env,
    tend: (args, extraEnv = {}) =>
      new Promise((resolve) => {
        execFile(process.execPath, [TEND_JS, 'mcp', ...args], { env: { ...env, ...extraEnv }, timeout: CLI_TIMEOUT_MS }, (err, stdout, stderr) => {
          resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
        });
      }),
    file: (kind) => join(home, kind === 'claude' ? '.claude.json' : kind === 'codex' ? '.codex/config.toml' : '.gemini/settings.json'),
  };
}

function ok(r: Run): Run {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The entry each agent's documentation describes, for this Node, this checkout and the sandbox's tend. */
function documentedEntry(kind: AgentKind, s: Sandbox): Record<string, unknown> {
  const launch = { command: process.execPath, args: [TEND_JS, 'mcp'] };
  const env = { TEND_HOME: s.tendHome, TEND_RUNTIME_DIR: s.runtime };
  if (kind === 'claude') return { type: 'stdio', ...launch, env };
  if (kind === 'codex') return { ...launch, tool_timeout_sec: 3600, env };
  return { ...launch, env, timeout: 3_600_000 };
}

/** Codex's table exactly as tend writes it (TOML basic strings quote a path as JSON does). */
function documentedCodexTable(s: Sandbox): string {
  const q = (v: string) => JSON.stringify(v);
  return [
    '[mcp_servers.tend]',
    `command = ${q(process.execPath)}`,
    `args = [${q(TEND_JS)}, "mcp"]`,
    'tool_timeout_sec = 3600',
    '',
    '[mcp_servers.tend.env]',
    `TEND_HOME = ${q(s.tendHome)}`,
    `TEND_RUNTIME_DIR = ${q(s.runtime)}`,
  ].join('\n');
}

/** tend's entry as the agent will read it. */
function entryIn(kind: AgentKind, text: string): unknown {
  if (kind !== 'codex') return (JSON.parse(text) as { mcpServers?: Record<string, unknown> }).mcpServers?.tend ?? null;
  return null;
}

/** `after` is `before` with one run of text put in somewhere: every byte of `before` is still there, in order, around it. */
function assertOnlyInserted(before: string, after: string): void {
  let head = 0;
  while (head < before.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  assert.equal(head + tail, before.length, `the file's own bytes were changed:\n--- before\n${before}\n--- after\n${after}`);
}

/** Users' files with servers, settings and layouts of their own (and lines that look like tend's table but are not). */
const ORIGINALS: Record<AgentKind, string> = {
  claude: [
    '{',
    '  "numStartups": 12,',
    '  "projects": {',
    '    "/home/user/app": {"allowedTools": [], "mcpServers": {}}',
    '  },',
    '  "mcpServers": {',
    '    "other": {"type": "stdio", "command": "npx", "args": ["-y", "other-mcp"], "env": {}}',
    '  },',
    '  "userID": "abc"',
    '}',
    '',
  ].join('\n'),
  codex: [
    '# my Codex settings',
    'model = "o3"',
    'notes = """',
    '[mcp_servers.tend]',
    'command = "inside a string"',
    '"""',
    '',
    '[mcp_servers.other]',
    'command = "npx"',
    'args = [',
    '  "-y", # why',
    '  "[mcp_servers.tend]",',
    ']',
    '',
    '[profiles.fast]',
    'model = "o4-mini"',
    '',
  ].join('\n'),
  gemini: ['{', '    "theme": "Default",', '    "tools": {"enableHooks": true}', '}', ''].join('\r\n'),
};

for (const kind of KINDS) {
  test(`${kind}: install writes the entry as the agent documents it and keeps every other byte; again changes nothing; uninstall gives back the exact file`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const s = sandbox(useTestScope(t));
    const file = s.file(kind);
    const original = ORIGINALS[kind];
    writeFile(file, original);

    const installed = ok(await s.tend(['install', kind]));
    assert.match(installed.stdout, /^changed .*: .* starts tend's MCP server as /);
    const after = readFileSync(file, 'utf8');
    assertOnlyInserted(original, after);
    if (kind === 'codex') assert.ok(after.includes(`\n\n${documentedCodexTable(s)}\n`), after);
    else assert.deepEqual(entryIn(kind, after), documentedEntry(kind, s));
    if (kind === 'gemini') assert.ok(!after.replaceAll('\r\n', '').includes('\n'), 'CRLF kept');
    assert.equal(readFileSync(`${file}.tend-backup`, 'utf8'), original);

    const again = ok(await s.tend(['install', kind, '--json']));
    const result = JSON.parse(again.stdout) as { changed: boolean; written: boolean; outcome: string };
    assert.deepEqual([result.changed, result.written, result.outcome], [false, false, 'unchanged']);
    assert.match(ok(await s.tend(['install', kind])).stdout, /already installed/);
    assert.equal(readFileSync(file, 'utf8'), after);

    const status = JSON.parse(ok(await s.tend(['status', kind, '--json'])).stdout) as Array<{ state: string; entry: unknown }>;
    assert.equal(status[0]!.state, 'installed');
    assert.deepEqual(status[0]!.entry, documentedEntry(kind, s));

    assert.match(ok(await s.tend(['uninstall', kind])).stdout, /took out tend's MCP server/);
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.match(ok(await s.tend(['uninstall', kind])).stdout, /no MCP server of tend's/);
    assert.match(ok(await s.tend(['status', kind])).stdout, new RegExp(`^${kind}: not installed \\(${file.replaceAll('.', '\\.')}\\)`));
    assert.deepEqual(readdirSync(s.tendHome), [], 'tend mcp install starts no server and writes nothing in TEND_HOME');
  });
}

test('a missing file is made with the entry alone; --print shows the change and writes nothing', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  for (const kind of KINDS) {
    const file = s.file(kind);
    const printed = ok(await s.tend(['install', kind, '--print']));
    assert.match(printed.stdout, /^--- .* \(as it is\)\n\+\+\+ .* \(after tend mcp install .*\)\n@@ /);
    assert.match(printed.stdout, /\(shown only: nothing was written\)\n$/);
    assert.match(printed.stderr, /^note: /m, 'the notes go to stderr beside a diff');
    assert.equal(existsSync(file), false, `${kind}: --print made no file`);

    ok(await s.tend(['install', kind]));
    const made = readFileSync(file, 'utf8');
    if (kind === 'codex') assert.equal(made, `${documentedCodexTable(s)}\n`);
    else assert.deepEqual(JSON.parse(made), { mcpServers: { tend: documentedEntry(kind, s) } });

    const unprinted = ok(await s.tend(['uninstall', kind, '--print', '--json']));
    const result = JSON.parse(unprinted.stdout) as { changed: boolean; written: boolean; diff: string };
    assert.deepEqual([result.changed, result.written], [true, false]);
    assert.match(result.diff, /^-.*tend/m);
    assert.equal(readFileSync(file, 'utf8'), made, `${kind}: uninstall --print wrote nothing`);
    assert.equal(existsSync(`${file}.tend-backup`), false, 'nothing written, nothing backed up');
  }
});

test("a stale entry (another checkout, another Node) is reported by status and pointed at this tend by install; the entry's other fields and the rest of the file are kept", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const old = { command: '/old/bin/node', args: ['/old/tend/bin/tend.js', 'mcp'] };
  writeFile(s.file('claude'), `{\n  "mcpServers": {\n    "tend": ${JSON.stringify({ type: 'stdio', ...old, env: { TEND_MCP_MAX_CHARS: '5000' } })},\n    "b": {"command": "b"}\n  }\n}\n`);
  const codexApproval = '[mcp_servers.tend.tools.run]\napproval_mode = "approve"';
  writeFile(s.file('codex'), `model = "o3"\n\n[mcp_servers.tend]\ncommand = "${old.command}"\nargs = ["${old.args[0]}", "mcp"]\n\n${codexApproval}\n\n[mcp_servers.b]\ncommand = "b"\n`);
  writeFile(s.file('gemini'), `{"mcpServers": {"tend": ${JSON.stringify({ ...old, trust: true })}}, "theme": "x"}`);

  const status = ok(await s.tend(['status']));
  for (const kind of KINDS) assert.match(status.stdout, new RegExp(`^${kind}: stale: .*\\n  tend's entry runs /old/bin/node /old/tend/bin/tend.js mcp, not this tend \\(${process.execPath}`, 'm'));
  assert.match(status.stdout, /its command \/old\/bin\/node is not there/);
  const states = JSON.parse(ok(await s.tend(['status', '--json'])).stdout) as Array<{ agent: string; state: string; differences: string[] }>;
  assert.deepEqual(states.map((r) => [r.agent, r.state]), KINDS.map((k) => [k, 'stale']));
  for (const r of states) assert.ok(r.differences.includes('command') && r.differences.includes('args'), JSON.stringify(r));

  for (const kind of KINDS) {
    const result = JSON.parse(ok(await s.tend(['install', kind, '--json'])).stdout) as { outcome: string; previous: { command: string } };
    assert.equal(result.outcome, 'replaced');
    assert.equal(result.previous.command, old.command);
  }
  const claude = JSON.parse(readFileSync(s.file('claude'), 'utf8')) as { mcpServers: Record<string, { env: unknown }> };
  const claudeWanted = documentedEntry('claude', s);
  assert.deepEqual(claude.mcpServers, { tend: { ...claudeWanted, env: { TEND_MCP_MAX_CHARS: '5000', ...(claudeWanted.env as object) } }, b: { command: 'b' } });
  const codexTable = documentedCodexTable(s).split('\n\n');
  assert.equal(readFileSync(s.file('codex'), 'utf8'), `model = "o3"\n\n${codexTable[0]}\n\n${codexApproval}\n\n${codexTable[1]}\n\n[mcp_servers.b]\ncommand = "b"\n`);
  const gemini = readFileSync(s.file('gemini'), 'utf8');
  assert.deepEqual(JSON.parse(gemini), { mcpServers: { tend: { ...documentedEntry('gemini', s), trust: true } }, theme: 'x' });
  assert.match(gemini, /^\{"mcpServers": \{"tend": \{"command": "[^\n]*\}\}, "theme": "x"\}$/, 'a file on one line stays on one line, in its own spacing');
  const after = JSON.parse(ok(await s.tend(['status', '--json'])).stdout) as Array<{ state: string }>;
  assert.deepEqual(after.map((r) => r.state), ['installed', 'installed', 'installed'], 'the fields of the user and the agent do not make an entry stale');
});

test('a file tend will not edit is left untouched, with one line that says why and no stack trace', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = sandbox(useTestScope(t));
  const cases: Array<[AgentKind, string, RegExp]> = [
    ['claude', '{\n  "mcpServers": {\n    "a": 1,\n  }\n}\n', /\.claude\.json is not valid JSON: a trailing comma before \} \(line 4, column 3\); Claude Code cannot read it either/],
    ['gemini', '{\n  // mine\n  "theme": "x"\n}\n', /settings\.json has a comment \(line 2, column 3\)/],
    ['codex', 'model = "o3"\nmcp_servers.tend.command = "node"\n', /config\.toml line 2 defines tend's MCP server as dotted keys \(mcp_servers\.tend\.command = "node"\), a form tend will not edit/],
    ['codex', '[mcp_servers]\ntend = { command = "node" }\n', /config\.toml line 2 defines tend's MCP server as an inline table/],
    ['codex', 'model = o3\n', /config\.toml is not valid TOML: "o3" is not a TOML value \(a string needs quotes\) \(line 1, column 9\); Codex cannot read it either/],
  ];
  for (const [kind, text, message] of cases) {
    writeFile(s.file(kind), text);
    for (const args of [['install', kind], ['uninstall', kind], ['install', kind, '--print']]) {
      const r = await s.tend(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /; nothing was changed\n$/);
      assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
      assert.equal(readFileSync(s.file(kind), 'utf8'), text);
      assert.equal(existsSync(`${s.file(kind)}.tend-backup`), false);
    }
    const status = await s.tend(['status', kind]);
    assert.equal(status.code, 1);
    assert.match(status.stdout, new RegExp(`^${kind}: cannot tell: `));
  }
  const usage = await s.tend(['install', 'claud']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /no agent "claud" \(did you mean claude\?\)/);
});

test('a file the user may not write is left untouched, with one line that says so', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const s = sandbox(scope);
  const file = s.file('gemini');
  const original = '{"theme": "x"}\n';
  writeFile(file, original);
  chmodSync(file, 0o444);
  // As root mode bits stop nothing: the CLI runs as another user, for whom they do.
  makeReadOnlyForChild(dirname(file), [s.home]);
  scope.defer(() => chmodSync(dirname(file), 0o755));
  const child = spawn(process.execPath, [readableByAnotherUser(TEND_JS), 'mcp', 'install', 'gemini'], {
    ...(runsAsRoot() ? OTHER_USER : {}),
    cwd: '/',
    env: { PATH: process.env.PATH, HOME: s.home, TEND_HOME: s.tendHome, TEND_RUNTIME_DIR: s.runtime },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^tend: cannot write .*settings\.json: permission denied; nothing was changed\n$/);
  assert.equal(readFileSync(file, 'utf8'), original);
});

test('CLAUDE_CONFIG_DIR and CODEX_HOME move the files, as the agents read them', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const s = sandbox(scope);
  const claudeDir = scope.tempDir('tend-mcpi-claude-');
  const codexDir = scope.tempDir('tend-mcpi-codex-');
  const env = { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexDir };
  ok(await s.tend(['install', 'claude'], env));
  ok(await s.tend(['install', 'codex'], env));
  assert.deepEqual(entryIn('claude', readFileSync(join(claudeDir, '.claude.json'), 'utf8')), documentedEntry('claude', s));
  assert.equal(readFileSync(join(codexDir, 'config.toml'), 'utf8'), `${documentedCodexTable(s)}\n`);
  assert.equal(existsSync(s.file('claude')), false);
  const status = JSON.parse(ok(await s.tend(['status', '--json'], env)).stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(status.map((r) => [r.agent, r.file, r.exists, r.state]), [
    ['claude', join(claudeDir, '.claude.json'), true, 'installed'],
    ['codex', join(codexDir, 'config.toml'), true, 'installed'],
    ['gemini', s.file('gemini'), false, 'not-installed'],
  ]);
  for (const r of status) assert.deepEqual(Object.keys(r).sort(), ['agent', 'entry', 'exists', 'file', 'notes', 'state', 'wanted']);
  const change = JSON.parse(ok(await s.tend(['uninstall', 'codex', '--json'], env)).stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(change).sort(), ['action', 'agent', 'backup', 'backupCreated', 'changed', 'created', 'entry', 'existed', 'file', 'notes', 'outcome', 'previous', 'written']);
  assert.deepEqual([change.action, change.outcome, change.entry], ['uninstall', 'removed', null]);
  assert.deepEqual(change.previous, documentedEntry('codex', s));
});

test('without TEND_HOME set, the entry carries no env but Claude\'s empty one; Codex gets the runtime dir XDG_RUNTIME_DIR decides', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const s = sandbox(scope);
  const xdg = scope.tempDir('tend-mcpi-xdg-');
  const env = { TEND_HOME: '', TEND_RUNTIME_DIR: '', XDG_RUNTIME_DIR: xdg };
  for (const kind of KINDS) ok(await s.tend(['install', kind], env));
  assert.deepEqual((entryIn('claude', readFileSync(s.file('claude'), 'utf8')) as { env: unknown }).env, {});
  assert.equal('env' in (entryIn('gemini', readFileSync(s.file('gemini'), 'utf8')) as object), false);
  assert.match(readFileSync(s.file('codex'), 'utf8'), new RegExp(`\\n\\[mcp_servers\\.tend\\.env\\]\\nTEND_RUNTIME_DIR = "${xdg}/tend-[0-9a-f]{12}"\\n$`));
});

for (const kind of KINDS) {
  test(`${kind}: the command written starts \`tend mcp\` with the written env, which reaches the same tend (the SDK's client lists its tools)`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    t.after(() => server.dispose());
    ok(await server.cli(['new', '--name', 'reached', '--', 'sh']));
    const s = sandbox(scope, { home: server.env.TEND_HOME!, runtime: server.env.TEND_RUNTIME_DIR! });
    ok(await s.tend(['install', kind]));
    const entry = (JSON.parse(ok(await s.tend(['status', kind, '--json'])).stdout) as Array<{ entry: { command: string; args: string[]; env?: Record<string, string> } }>)[0]!.entry;
    assert.deepEqual(entry, documentedEntry(kind, s));

    // The SDK's client passes the server only a few variables of its own (HOME, PATH…) besides the
    // entry's env, as Codex does: what reaches tend is what the entry says.
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: entry.env ?? {}, stderr: 'pipe' });
    const client = new Client({ name: 'tend-install-test', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    assert.equal(client.getServerVersion()?.name, 'tend');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), MCP_TOOLS.map((tool) => tool.name));
    if (tools.some((tool) => tool.name === 'list_sessions')) {
      const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
      assert.notEqual(listed.isError, true, JSON.stringify(listed));
      const names = ((listed.structuredContent as { sessions: Array<{ name: string | null }> }).sessions ?? []).map((x) => x.name);
      assert.deepEqual(names, ['reached'], 'the agent\'s tend mcp reached the test server, not a tend of its own');
    }
  });
}
