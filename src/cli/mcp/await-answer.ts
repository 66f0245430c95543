// What `run`, `prompt_agent` and `await_result` answer: an await of the tend
// server (a shell command bound to its end mark, or an agent's turn) as an
// agent reads it. Done: the command's exit code and output, or the agent's
// answer and outcome, the text bounded with a note saying how to read the
// rest. Pending: the await's id, which await_result collects, and what to do
// meanwhile. Field names are snake_case, as every tool of `tend mcp` has them.
import { z } from 'zod';
import type { AwaitAgentDone, AwaitDone, AwaitReply } from '../../protocol/api/index.js';
import { commandLineFields, recordedLineView } from './command-line-view.js';
import { MAX_MAX_CHARS, keepTail, textCutSchema, type TextCut } from './bounded-text.js';
import { OUTPUT_NOT_KEPT } from './tool-errors.js';

const base = {
  status: z.enum(['done', 'pending']).describe('done: it ended and this is its result; pending: still going (nothing was cancelled): await_result with await_id collects it'),
  session: z.string().describe("The session's id"),
  await_id: z.string().describe('Names this wait: await_result takes it (results are kept for an hour after the command or turn ends)'),
  waited_ms: z.number().int().describe('How long this call waited'),
};

const noteField = {
  note: z.string().optional().describe('When pending: what to do next. When done with output null: why tend has no output for it, and how to get it'),
};

const commandFields = {
  command: z.number().int().optional().describe("The command's number in the session (the output and commands tools take it)"),
  command_line: commandLineFields.command_line.optional(),
  command_line_cut: commandLineFields.command_line_cut,
  ran_as: commandLineFields.ran_as,
  cwd: z.string().nullable().optional().describe('The directory the shell was in when the command started'),
  exit_code: z.number().int().nullable().optional().describe('The exit status the shell reported (null: none reported)'),
  output: z.string().nullable().optional().describe("What the command printed (null when it had already scrolled out of the session's history)"),
  duration_ms: z.number().int().optional(),
};

const agentFields = {
  answer: z.string().nullable().optional().describe("The agent's answer: its turn's final text (null when it gave none)"),
  outcome: z.enum(['answered', 'failed', 'interrupted']).optional().describe("answered; failed (an API error: see error); interrupted (the turn ended before the agent's answer)"),
  error: z.string().nullable().optional().describe("A failed turn's error"),
  answer_from: z.enum(['hook', 'screen']).nullable().optional().describe("hook: the agent's own final message; screen: read off the screen below the prompt (it may hold the agent's input box)"),
  agent_session_id: z.string().nullable().optional().describe("The agent's conversation id"),
  turn_id: z.string().optional(),
  state: z.string().optional().describe("The agent's state as the turn ended (idle, needs-permission…)"),
  duration_ms: z.number().int().optional(),
};

const cutField = { cut: textCutSchema.optional() };

export const commandAnswerSchema = z.object({ ...base, ...commandFields, ...cutField, ...noteField });
export const agentAnswerSchema = z.object({ ...base, ...agentFields, ...cutField, ...noteField });
export const anyAnswerSchema = z.object({
  ...base,
  kind: z.enum(['command', 'agent']).optional().describe('command: a shell command (run); agent: a prompt to an agent (prompt_agent). Absent while pending'),
  ...commandFields,
  ...agentFields,
  ...cutField,
  ...noteField,
});

export type AwaitAnswer = z.infer<typeof anyAnswerSchema>;

/** What the answer is built from besides the server's reply. */
export interface AnswerContext {
  waitedMs: number;
  maxChars: number;
  /** For a pending answer: what is being waited for ("the command `make`", "the agent's turn"). */
  what: string;
  /** What is awaited, when the caller knows: it says how to stop it. */
  awaiting?: 'command' | 'agent';
}

/** How to stop what is awaited, for a pending answer's note. */
const STOP_HINTS = {
  command: 'send with keys ["C-c"] stops the command',
  agent: "send with keys [\"Escape\"] interrupts the agent's turn",
  unknown: 'send with keys ["C-c"] stops a command (keys ["Escape"] interrupts an agent\'s turn)',
};

/** Which await a reply settles: a shell command's or an agent's turn; null while pending. */
export function kindOf(reply: AwaitReply): 'command' | 'agent' | null {
  if (reply.status === 'pending') return null;
  return 'agent' in reply ? 'agent' : 'command';
}

/** The server's reply to an await, as the tools answer it. */
export function answerOf(reply: AwaitReply, context: AnswerContext): AwaitAnswer {
  const common = { session: reply.session, await_id: reply.id, waited_ms: Math.round(context.waitedMs) };
  if (reply.status === 'pending') {
    return {
      status: 'pending',
      ...common,
      note: `${context.what} is still going after ${formatSeconds(context.waitedMs)}; nothing was cancelled. Call await_result with await_id "${reply.id}" to wait for its result (results are kept for an hour after it ends); meanwhile screen shows session ${reply.session} as it is, and ${STOP_HINTS[context.awaiting ?? 'unknown']}.`,
    };
  }
  if ('agent' in reply) return agentAnswer(reply, common, context.maxChars);
  return commandAnswer(reply, common, context.maxChars);
}

type Common = Pick<AwaitAnswer, 'session' | 'await_id' | 'waited_ms'>;

/** How the note of a command's output cut to its tail says to read the rest: the output tool, from line 1. */
export function readOmittedOutput(session: string, number: number): (lastOmitted: number) => string {
  return (lastOmitted) => `the output tool reads them: session "${session}", command ${number}, from_line 1, max_lines ${lastOmitted}`;
}

function commandAnswer(reply: AwaitDone, common: Common, maxChars: number): AwaitAnswer {
  const number = reply.command.number;
  let output: string | null = reply.output;
  let cut: TextCut | null = null;
  if (output !== null) ({ text: output, cut } = keepTail(output, maxChars, readOmittedOutput(reply.session, number)));
  return {
    status: 'done',
    kind: 'command',
    ...common,
    command: number,
    ...recordedLineView(reply.command.commandLine),
    cwd: reply.command.cwd,
    exit_code: reply.exitCode,
    output,
    cut,
    duration_ms: reply.command.endedAt === null ? 0 : Math.max(0, reply.command.endedAt - reply.command.startedAt),
    ...(output === null ? { note: OUTPUT_NOT_KEPT } : {}),
  };
}

function agentAnswer(reply: AwaitAgentDone, common: Common, maxChars: number): AwaitAnswer {
  const turn = reply.agent;
  let answer = turn.answer;
  let cut: TextCut | null = null;
  if (answer !== null) {
    ({ text: answer, cut } = keepTail(answer, maxChars, () =>
      maxChars < MAX_MAX_CHARS
        ? `await_result with await_id "${reply.id}" and a larger max_chars (up to ${MAX_MAX_CHARS}) answers it again with more of it`
        : `screen with scrollback shows session ${reply.session}'s terminal, the answer among it`));
  }
  return {
    status: 'done',
    kind: 'agent',
    ...common,
    answer,
    outcome: turn.outcome,
    error: turn.error,
    answer_from: turn.answerFrom,
    agent_session_id: turn.agentSessionId,
    turn_id: turn.turnId,
    state: turn.state,
    duration_ms: Math.round(turn.durationMs),
    cut,
  };
}

/** Seconds as people say them: "1 s", "2.5 s", "90 s". */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds >= 10 ? Math.round(seconds) : Math.round(seconds * 10) / 10} s`;
}

/** The answer without the fields of the other kind, for a tool whose schema has only one. */
export function withoutKind<T extends AwaitAnswer>(answer: T): Omit<T, 'kind'> {
  const { kind: _kind, ...rest } = answer;
  return rest;
}
