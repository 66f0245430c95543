// `tend mcp`: an MCP server on stdio (the official SDK, v2), the tools of
// tools/ registered on it. stdout carries the protocol and nothing else;
// what tend has to say goes to stderr. Each tool's answer is its structured
// result plus the same JSON as text; a failure is an `isError` result
// (tool-errors.ts). The tend server is reached through McpApi, started when
// none runs, and ridden through when it restarts.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { TEND_VERSION } from '../../common/version.js';
import type { TendClient } from '../client.js';
import { DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS } from './bounded-text.js';
import { McpApi } from './mcp-api.js';
import { resultOfError } from './tool-errors.js';
import type { AnyMcpTool, ToolCall } from './tool-kit.js';
import { historyTools } from './tools/history.js';
import { runTools } from './tools/run.js';
import { sessionTools } from './tools/sessions.js';
import { terminalTools } from './tools/terminal.js';

/** Every tool, in the order tools/list gives them (deterministic, as the spec asks). */
export const MCP_TOOLS: readonly AnyMcpTool[] = [...sessionTools, ...runTools, ...terminalTools, ...historyTools];

const INSTRUCTIONS = `tend keeps terminals alive in a server of their own: sessions outlive this connection, the agent, and restarts of tend itself.
Sessions are named by id, :name, or the index list_sessions shows.
To run a shell command and get its exit code and output, use run: it waits for the shell's own end-of-command mark (no polling, no markers in the output). A run that outlasts its timeout returns a pending await id; await_result collects it.
For programs that are not shells (a REPL, an editor, a TUI, an agent), use send (text and named keys such as C-c, Up, Enter) and screen.
Answers are bounded; a cut answer says what was left out and how to read it.`;

export interface McpServeOptions {
  client: TendClient;
  stderr: NodeJS.WriteStream;
  /** Characters of text per answer unless a call asks otherwise (TEND_MCP_MAX_CHARS). */
  maxChars?: number;
}

/** The default text bound: TEND_MCP_MAX_CHARS when it is a number in range, else DEFAULT_MAX_CHARS. */
export function maxCharsFromEnv(env: NodeJS.ProcessEnv): number | string {
  const raw = env.TEND_MCP_MAX_CHARS;
  if (raw === undefined || raw === '') return DEFAULT_MAX_CHARS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MIN_MAX_CHARS || n > MAX_MAX_CHARS) return `TEND_MCP_MAX_CHARS is "${raw}"; it takes a whole number from ${MIN_MAX_CHARS} to ${MAX_MAX_CHARS}`;
  return n;
}

function buildServer(options: McpServeOptions, api: McpApi, closing: AbortSignal): McpServer {
  const server = new McpServer({ name: 'tend', title: 'tend: terminals that outlive everything', version: TEND_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: { title: tool.title, ...tool.hints } },
      async (args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        let progress = 0;
        const call: ToolCall = {
          api,
          signal: AbortSignal.any([ctx.mcpReq.signal, closing]),
          maxChars: options.maxChars ?? DEFAULT_MAX_CHARS,
          async progress(message) {
            if (token === undefined) return;
            try {
              await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } });
            } catch {
              // The client went away; the call's answer will find nobody either.
            }
          },
        };
        try {
          const answer = await tool.run(args as Record<string, unknown>, call);
          return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }], structuredContent: answer as Record<string, unknown> };
        } catch (err) {
          return resultOfError(err, options.stderr);
        }
      },
    );
  }
  return server;
}

/** Serves MCP on this process's stdin and stdout until the client closes its end. */
export function serveMcp(options: McpServeOptions): Promise<void> {
  const api = new McpApi(options.client, options.stderr);
  const closing = new AbortController();
  return new Promise((resolve) => {
    const handle = serveStdio(() => buildServer(options, api, closing.signal), {
      onerror: (err) => options.stderr.write(`tend mcp: ${err.message}\n`),
    });
    // The client closed stdin: nobody is left to answer. Calls in flight
    // are only waits (an await goes on in the server, collectable later).
    const done = () => {
      closing.abort();
      handle.close().finally(resolve);
    };
    process.stdin.once('end', done);
    process.stdin.once('close', done);
  });
}
