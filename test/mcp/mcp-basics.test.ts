// `tend mcp` over stdio with the SDK's client: the hand-shake, the list of
// tools (names in the spec's charset, each with schemas), stdout carrying
// the protocol only, and the end when the client closes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { mcpWithServer } from './mcp-harness.js';
import { repoRoot, startTestServer, waitFor } from '../server/harness.js';

describe('tend mcp: the server', () => {
  test('answers the hand-shake as tend and lists its tools, each named in the spec charset with input and output schemas', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const info = mcp.client.getServerVersion();
    assert.equal(info?.name, 'tend');
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [
      'list_sessions', 'new_session', 'kill_session', 'rename_session',
      'run', 'await_result', 'prompt_agent',
      'send', 'screen',
      'output', 'commands', 'search',
    ]);
    for (const tool of tools) {
      assert.match(tool.name, /^[A-Za-z0-9_.-]{1,128}$/);
      assert.ok((tool.description ?? '').length > 40, `${tool.name} has a description an agent can act on`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
    }
  });

  test('stdout carries JSON-RPC only (even while it starts a server), protocol misuse is a JSON-RPC error, and it exits 0 when stdin closes', async (t) => {
    const server = startTestServer();
    t.after(() => server.dispose());
    assert.equal(server.serverPid(), null, 'no server runs yet: tend mcp starts one on its first call');
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'tend.js'), 'mcp'], { env: server.env, stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const answers = () => stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id?: number; result?: any; error?: any });
    const answerTo = (id: number) => waitFor(`the answer to request ${id}`, () => answers().find((m) => m.id === id));

    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    assert.equal((await answerTo(1)).result.serverInfo.name, 'tend');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } });
    assert.deepEqual((await answerTo(2)).result.structuredContent, { sessions: [] });
    assert.notEqual(server.serverPid(), null, 'the call started the server');
    send({ jsonrpc: '2.0', id: 3, method: 'no/such/method' });
    assert.equal((await answerTo(3)).error.code, -32601, 'an unknown method is JSON-RPC\'s "method not found"');
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    assert.ok((await answerTo(4)).error, 'an unknown tool is a JSON-RPC error');
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'screen', arguments: { session: 7 } } });
    const badArgs = await answerTo(5);
    assert.ok(badArgs.error !== undefined || badArgs.result.isError === true, 'arguments that fail the schema are refused');
    for (const line of stdout.split('\n').filter((l) => l !== '')) assert.equal(JSON.parse(line).jsonrpc, '2.0', `only JSON-RPC on stdout: ${line}`);

    child.stdin.end();
    assert.equal(await exited, 0);
  });
});
