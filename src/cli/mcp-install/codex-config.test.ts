import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SettingsShapeError } from '../hooks/hook-entries.js';
import { planCodexInstall, planCodexUninstall, readCodexEntry, tableText } from './codex-config.js';
import { mergedEntry } from './tend-mcp-entry.js';

const FILE = 'config.toml';
const WANTED = { command: '/usr/bin/node', args: ['/opt/tend/bin/tend.js', 'mcp'], tool_timeout_sec: 3600, env: { TEND_HOME: '/h' } };
const TABLE = '[mcp_servers.tend]\ncommand = "/usr/bin/node"\nargs = ["/opt/tend/bin/tend.js", "mcp"]\ntool_timeout_sec = 3600\n\n[mcp_servers.tend.env]\nTEND_HOME = "/h"';

test('the table tend writes: its keys, then env as a sub-table; read back it is the entry', () => {
  assert.equal(tableText(WANTED, '\n'), TABLE);
  assert.deepEqual(readCodexEntry(`${TABLE}\n`, FILE), WANTED);
});

test('install appends after the last line of content and uninstall gives back the exact bytes, whatever the file ends with', () => {
  const originals = [
    '',
    '\n\n',
    'model = "o3"',
    'model = "o3"\n',
    'model = "o3"\n\n\n',
    '[mcp_servers.other]\r\ncommand = "x"\r\n',
    '# only a comment',
    '\uFEFFmodel = "o3"\n',
    '\uFEFF',
    'args = [\n  "a",\n  ["b"],\n]\n# the end\n',
  ];
  for (const original of originals) {
    const { after, before } = planCodexInstall(original, WANTED, FILE);
    assert.equal(before, null);
    assert.deepEqual(readCodexEntry(after, FILE), WANTED, JSON.stringify(original));
    assert.ok(after.includes(original.includes('\r\n') ? TABLE.replaceAll('\n', '\r\n') : TABLE), JSON.stringify(after));
    assert.equal(planCodexInstall(after, WANTED, FILE).after, after, 'a second install changes nothing');
    assert.equal(planCodexUninstall(after, FILE).after, original, JSON.stringify(original));
  }
});

test('a stale table in the middle gets tend\'s keys set line by line: the other lines, Codex\'s tool approvals and the comments stay', () => {
  const head = 'model = "o3"\n\n[mcp_servers.first]\ncommand = "a"\n\n';
  const tail = '\n# about the next one\n[mcp_servers.next]\ncommand = "b"\n';
  const stale = [
    '[ mcp_servers . "tend" ]',
    'command = "/old/node" # old',
    '# inside',
    'args = ["/old/tend.js", "mcp"]',
    'default_tools_approval_mode = "approve"',
    '[mcp_servers.tend.env]',
    'TEND_HOME = "/elsewhere"',
    'TEND_MCP_MAX_CHARS = "5000"',
    '',
    '[mcp_servers.tend.tools.run]',
    'approval_mode = "prompt"',
  ].join('\n');
  const { after, before } = planCodexInstall(head + stale + tail, WANTED, FILE);
  assert.deepEqual(before, {
    command: '/old/node',
    args: ['/old/tend.js', 'mcp'],
    default_tools_approval_mode: 'approve',
    env: { TEND_HOME: '/elsewhere', TEND_MCP_MAX_CHARS: '5000' },
    tools: { run: { approval_mode: 'prompt' } },
  });
  const fresh = [
    '[ mcp_servers . "tend" ]',
    'command = "/usr/bin/node" # old',
    '# inside',
    'args = ["/opt/tend/bin/tend.js", "mcp"]',
    'default_tools_approval_mode = "approve"',
    'tool_timeout_sec = 3600',
    '[mcp_servers.tend.env]',
    'TEND_HOME = "/h"',
    'TEND_MCP_MAX_CHARS = "5000"',
    '',
    '[mcp_servers.tend.tools.run]',
    'approval_mode = "prompt"',
  ].join('\n');
  assert.equal(after, head + fresh + tail);
  assert.deepEqual(readCodexEntry(after, FILE), mergedEntry(before, WANTED));
  assert.equal(planCodexInstall(after, WANTED, FILE).after, after, 'a second install changes nothing');
  assert.equal(planCodexUninstall(after, FILE).after, 'model = "o3"\n\n[mcp_servers.first]\ncommand = "a"' + tail);
});

test('TEND_HOME and TEND_RUNTIME_DIR are set or taken out in the env as it is written: sub-table, dotted keys or inline table', () => {
  const own = '[mcp_servers.tend]\ncommand = "/usr/bin/node"\nargs = ["/opt/tend/bin/tend.js", "mcp"]\ntool_timeout_sec = 3600\n';
  const both = { ...WANTED, env: { TEND_HOME: '/h', TEND_RUNTIME_DIR: '/r' } };
  const noEnv = { command: WANTED.command, args: WANTED.args, tool_timeout_sec: 3600 };
  const onlyRuntime = { ...WANTED, env: { TEND_RUNTIME_DIR: '/r' } };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [`${own}env.TEND_HOME = "/old"\nenv.X = "1"\n`, both, `${own}env.TEND_HOME = "/h"\nenv.X = "1"\nenv.TEND_RUNTIME_DIR = "/r"\n`],
    [`${own}env = { X = "1", TEND_HOME = "/old" } # mine\n`, WANTED, `${own}env = { X = "1", TEND_HOME = "/h" } # mine\n`],
    [`${own}\n[mcp_servers.tend.env]\nTEND_HOME = "/old"\nTEND_RUNTIME_DIR = "/r"\n`, noEnv, `${own}\n[mcp_servers.tend.env]\n`],
    [`${own}\n[mcp_servers.tend.env]\nTEND_HOME = "/old" # was\nX = "1"\n`, onlyRuntime, `${own}\n[mcp_servers.tend.env]\nTEND_RUNTIME_DIR = "/r"\nX = "1"\n`],
    [`${own}\n[mcp_servers.tend.tools.run]\napproval_mode = "approve"\n`, WANTED, `${own}\n[mcp_servers.tend.tools.run]\napproval_mode = "approve"\n\n[mcp_servers.tend.env]\nTEND_HOME = "/h"\n`],
  ];
  for (const [text, wanted, expected] of cases) {
    const { after, before } = planCodexInstall(text, wanted, FILE);
    assert.equal(after, expected, text);
    assert.deepEqual(readCodexEntry(after, FILE), mergedEntry(before, wanted), text);
    assert.equal(planCodexInstall(after, wanted, FILE).after, after, `again: ${text}`);
  }
});

test('env as an inline table reads as the same entry as a sub-table, so install leaves it as it is', () => {
  const text = '[mcp_servers.tend]\ncommand = "/usr/bin/node"\nargs = ["/opt/tend/bin/tend.js", "mcp"]\ntool_timeout_sec = 3600\nenv = { TEND_HOME = "/h" }\n';
  assert.equal(planCodexInstall(text, WANTED, FILE).after, text);
});

test('the name defined in a form tend will not edit is refused with its line', () => {
  const refused: Array<[string, RegExp]> = [
    ['model = "o3"\nmcp_servers.tend.command = "x"\n', /line 2 defines tend's MCP server as dotted keys/],
    ['[mcp_servers]\ntend = { command = "x" }\n', /line 2 .* as an inline table/],
    ['[mcp_servers]\ntend.command = "x"\n', /line 2 .* as dotted keys/],
    ['mcp_servers = { tend = { command = "x" } }\n', /line 1 .* as a member of an inline mcp_servers table/],
    ['[[mcp_servers.tend]]\ncommand = "x"\n', /line 1 .* as an array of tables/],
    ['[mcp_servers.tend]\ncommand = "x"\n[other]\n[mcp_servers.tend.env]\nA = "1"\n', /line 4 .* as a table apart from its \[mcp_servers.tend\] table/],
    ['[mcp_servers.tend]\n[mcp_servers.tend]\n', /line 2 .* as a second \[mcp_servers.tend\] table/],
  ];
  for (const [text, message] of refused) {
    for (const run of [() => planCodexInstall(text, WANTED, FILE), () => planCodexUninstall(text, FILE), () => readCodexEntry(text, FILE)]) {
      assert.throws(run, (err: unknown) => err instanceof SettingsShapeError && message.test(err.message), text);
    }
  }
});

test('mcp_servers written as an inline table: nothing of tend\'s there, and install refuses to add to it', () => {
  const text = 'mcp_servers = { other = { command = "x" } }\n';
  assert.equal(readCodexEntry(text, FILE), null);
  assert.equal(planCodexUninstall(text, FILE).after, text);
  assert.throws(() => planCodexInstall(text, WANTED, FILE), /writes mcp_servers as an inline table/);
});
