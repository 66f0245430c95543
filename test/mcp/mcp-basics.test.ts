// `tend mcp` over stdio with the SDK's client: the hand-shake, the list of
// tools (names in the spec's charset, each with schemas), stdout carrying
// the protocol only, and the end when the client closes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpWithServer } from './mcp-harness.js';

describe('tend mcp: the server', () => {
  test('answers the hand-shake as tend and lists its tools, each named in the spec charset with input and output schemas', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const info = mcp.client.getServerVersion();
    assert.equal(info?.name, 'tend');
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      assert.match(tool.name, /^[A-Za-z0-9_.-]{1,128}$/);
      assert.ok((tool.description ?? '').length > 40, `${tool.name} has a description an agent can act on`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
    }
  });
});
