import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SettingsShapeError } from '../hooks/hook-entries.js';
import { planJsonInstall, planJsonUninstall, readJsonEntry } from './json-mcp-servers.js';

const FILE = 'settings.json';
const WANTED = { command: '/usr/bin/node', args: ['/opt/tend/bin/tend.js', 'mcp'], timeout: 3600000 };

test('install adds "tend" after the other servers in the file\'s layout; uninstall gives back the bytes', () => {
  const original = '{\n\t"theme": "dark",\n\t"mcpServers": {\n\t\t"other": {"command": "x"}\n\t}\n}';
  const { after, before } = planJsonInstall(original, WANTED, FILE);
  assert.equal(before, null);
  assert.equal(after, '{\n\t"theme": "dark",\n\t"mcpServers": {\n\t\t"other": {"command": "x"},\n\t\t"tend": {\n\t\t\t"command": "/usr/bin/node",\n\t\t\t"args": [\n\t\t\t\t"/opt/tend/bin/tend.js",\n\t\t\t\t"mcp"\n\t\t\t],\n\t\t\t"timeout": 3600000\n\t\t}\n\t}\n}');
  assert.deepEqual(readJsonEntry(after, FILE), WANTED);
  assert.equal(planJsonInstall(after, WANTED, FILE).after, after);
  assert.equal(planJsonUninstall(after, FILE).after, original);
});

test('a file without mcpServers gets it, and loses it again on uninstall; a minified file stays on one line', () => {
  for (const original of ['{"a":1}', '{\n  "a": 1\n}\n', '', '  \n']) {
    const { after } = planJsonInstall(original, WANTED, FILE);
    assert.deepEqual((JSON.parse(after) as { mcpServers: unknown }).mcpServers, { tend: WANTED });
    if (original === '{"a":1}') assert.ok(!after.includes('\n'));
    const back = planJsonUninstall(after, FILE).after;
    assert.equal(back, original.trim() === '' ? '{}\n' : original);
  }
});

test('a stale entry is rewritten where it is, at its indent, tend\'s fields set and the others kept; a key given twice leaves one', () => {
  const original = '{\n  "mcpServers": {\n    "tend": {"command": "/old"},\n    "b": {},\n    "tend": {"command": "/older", "trust": true, "env": {"X": "1", "TEND_HOME": "/old"}}\n  }\n}\n';
  const before = { command: '/older', trust: true, env: { X: '1', TEND_HOME: '/old' } };
  assert.deepEqual(readJsonEntry(original, FILE), before);
  const { after } = planJsonInstall(original, WANTED, FILE);
  assert.deepEqual(JSON.parse(after), { mcpServers: { b: {}, tend: { command: WANTED.command, trust: true, env: { X: '1' }, args: WANTED.args, timeout: WANTED.timeout } } });
  assert.match(after, /\n {4}"tend": \{\n {6}"command"/);
  assert.equal(planJsonInstall(after, WANTED, FILE).after, after, 'a second install changes nothing');
  assert.equal(planJsonUninstall(after, FILE).after, '{\n  "mcpServers": {\n    "b": {}\n  }\n}\n');
});

test('shapes tend cannot edit are refused', () => {
  assert.throws(() => planJsonInstall('[]', WANTED, FILE), (e: unknown) => e instanceof SettingsShapeError && /not an object of settings/.test(e.message));
  assert.throws(() => planJsonInstall('{"mcpServers": []}', WANTED, FILE), (e: unknown) => e instanceof SettingsShapeError && /not an object of MCP servers/.test(e.message));
});
