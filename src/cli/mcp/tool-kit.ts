// What one MCP tool of `tend mcp` is, and how its answer goes on the wire.
// A tool is data (name, description, input and output schemas, annotations)
// and a run() that returns the structured answer or throws. The kit turns the
// answer into the result the spec asks for (structuredContent, and the same
// JSON as text for clients that read only text), and anything thrown into an
// `isError` result the agent can read and act on (tool-errors.ts). Protocol
// misuse (an unknown tool, arguments that fail the schema) is the SDK's.
import type { z } from 'zod';
import type { McpApi } from './mcp-api.js';

/** Hints for clients (the spec's ToolAnnotations); none of them is a promise clients rely on for safety. */
export interface ToolHints {
  /** Changes nothing: reading a screen, listing sessions. */
  readOnlyHint?: boolean;
  /** May end or lose something: killing a session, sending keys to a program. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** Reaches past tend (tend's tools reach only this machine's terminals). */
  openWorldHint?: boolean;
}

/** What a tool's run() is given besides its arguments. */
export interface ToolCall {
  /** The tend server, reached as every verb reaches it (started when none runs). */
  api: McpApi;
  /**
   * Tells the client how a long call goes (a progress notification with this
   * message and a count that only grows); nothing when the client asked for
   * no progress. Also what keeps a client's idle timeout from ending the call.
   */
  progress(message: string): Promise<void>;
  /** Aborted when the client cancels the call, or the connection ends. */
  signal: AbortSignal;
  /** The characters of text one answer may carry unless the call asks otherwise (bounded-text.ts). */
  maxChars: number;
}

export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** In the spec's charset (A-Z a-z 0-9 _ - .), unique: list_sessions, run… */
  name: string;
  title: string;
  /** What it does, when to use it, what it returns, and what to do when it fails: written for a model to act on. */
  description: string;
  input: I;
  output: O;
  hints: ToolHints;
  run(args: z.infer<I>, call: ToolCall): Promise<z.infer<O>>;
}

/** A tool as the list of tools holds it: its schemas' types forgotten, which the SDK checks at run time. */
export type AnyMcpTool = McpTool<z.ZodObject, z.ZodObject>;

/** Keeps a tool's types while listing it beside others. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: McpTool<I, O>): AnyMcpTool {
  return tool as unknown as AnyMcpTool;
}

/**
 * A failure the agent can fix or work around, said for it: what went wrong,
 * and what to do (another name, a way to turn on shell integration…).
 * `details` are machine-readable extras beside the code and message
 * (candidates, an exit code, an await id).
 */
export class ToolError extends Error {
  constructor(readonly code: string, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ToolError';
  }
}
