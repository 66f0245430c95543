// `tend mcp` as an agent meets it: the MCP SDK's own client, over stdio, to
// `node bin/tend.js mcp` started with a test server's environment (its
// TEND_HOME, so the test's dispose ends it by PID with everything else).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { repoRoot, startTestServer, type TestServer } from '../server/harness.js';

export interface ToolAnswer {
  /** structuredContent, or the error object of an isError result. */
  value: any;
  /** The text block (the same JSON as value, for a success). */
  text: string;
  isError: boolean;
  /** The progress notifications' messages, in order. */
  progress: string[];
}

export interface McpPeer {
  client: Client;
  /** What `tend mcp` wrote on stderr so far. */
  stderr(): string;
  call(name: string, args?: Record<string, unknown>, options?: { progress?: boolean; timeoutMs?: number }): Promise<ToolAnswer>;
  close(): Promise<void>;
}

/** Starts `tend mcp` against `server` and connects the SDK's client to it; closed when the test ends. */
export async function connectMcp(t: TestContext, server: TestServer, extraEnv: Record<string, string> = {}): Promise<McpPeer> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...server.env, ...extraEnv })) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(repoRoot, 'bin', 'tend.js'), 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'tend-test', version: '1.0.0' });
  await client.connect(transport);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close();
  };
  t.after(close);
  return {
    client,
    stderr: () => stderr,
    close,
    async call(name, args = {}, options = {}) {
      const progress: string[] = [];
      const result = await client.callTool(
        { name, arguments: args },
        {
          ...(options.progress ? { onprogress: (p: { message?: string }) => progress.push(p.message ?? '') } : {}),
          // Long runs outlast the SDK's default 60 s request timeout only when a test means them to.
          timeout: options.timeoutMs ?? 120_000,
        },
      );
      const text = (result.content as Array<{ type: string; text?: string }>).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
      const isError = result.isError === true;
      const value = isError ? (JSON.parse(text) as { error: unknown }).error : result.structuredContent;
      return { value, text, isError, progress };
    },
  };
}

/** A test server and `tend mcp` on it, both ended when the test ends. */
export async function mcpWithServer(t: TestContext, extraEnv: Record<string, string> = {}): Promise<{ server: TestServer; mcp: McpPeer }> {
  const server = startTestServer(extraEnv);
  t.after(() => server.dispose());
  const mcp = await connectMcp(t, server);
  return { server, mcp };
}

/**
 * What new_session's command ended with. On a loaded machine the command can
 * outlast new_session's short wait (it answers pending then, as documented),
 * so a pending one is collected with await_result, as an agent would.
 */
export async function endedCommand(mcp: McpPeer, started: ToolAnswer) {
  const command = started.value.command;
  if (command.status !== 'pending') return command;
  const collected = await mcp.call('await_result', { await_id: command.await_id });
  assert.equal(collected.isError, false, collected.text);
  return { ...command, status: collected.value.status, output: collected.value.output, exit_code: collected.value.exit_code, number: collected.value.command, note: collected.value.note };
}
