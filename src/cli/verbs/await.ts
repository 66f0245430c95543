import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { AwaitConnection, newAwaitId } from './await-connection.js';
import { API_ROUTES, AWAIT_ID_PATTERN, MAX_AWAIT_INPUT_BYTES, type AwaitAgentDone, type AwaitDone, type AwaitPending } from '../../protocol/api/index.js';

/**
 * One HTTP call waits at most this long; longer waits are a loop of calls.
 * Short because Node's default HTTP agent drops a socket that has been idle
 * for 5 s, and a waiting call is idle until its answer.
 */
const WAIT_PER_CALL_MS = 3000;
const MAX_TIMEOUT_S = 7 * 24 * 3600;

/** What POST …/await and GET /v1/awaits/:id answer (a failure is an error answer). */
type AwaitReply = AwaitPending | AwaitDone | AwaitAgentDone;

function parseTimeout(value: unknown): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (typeof value !== 'string' || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_TIMEOUT_S) {
    throw usageError(`--timeout takes seconds (e.g. 30 or 0.5), not "${String(value)}"`);
  }
  return Math.round(seconds * 1000);
}

/** INPUT as the server takes it: a command line, and not over its limit. */
function checkInput(input: string): void {
  if (input.trim() === '') throw usageError('missing INPUT: the command line to run, after -- (tend await TARGET -- INPUT...)');
  const bytes = Buffer.byteLength(input);
  if (bytes > MAX_AWAIT_INPUT_BYTES) throw usageError(`INPUT is ${bytes} bytes; tend await types at most ${MAX_AWAIT_INPUT_BYTES} (1 MiB)`);
}

/** Polls the await's location until it settles or the deadline passes. */
async function collect(conn: AwaitConnection, first: AwaitReply, deadline: number | null): Promise<AwaitReply> {
  let reply = first;
  while (reply.status === 'pending') {
    const left = deadline === null ? WAIT_PER_CALL_MS : deadline - Date.now();
    if (left <= 0) break;
    reply = await conn.callRoute<AwaitReply>(API_ROUTES.getAwait, { id: reply.id }, undefined, { waitMs: Math.min(left, WAIT_PER_CALL_MS) });
  }
  return reply;
}

export const awaitVerb: Verb = {
  name: 'await',
  summary: "run a command in a session and wait for its exit status, or prompt its agent and wait for the answer",
  usage: `tend await TARGET [--timeout S] [--json] -- INPUT...
tend await --resume ID [--timeout S] [--json]

Types INPUT into the session's shell, presses Enter, and waits for the
shell to report that command's end (its integration's end mark, never a
quiet screen). Prints the command's output and exits with its status.

INPUT is typed only when the shell shows its prompt: while a command runs
or another program holds the terminal, tend types nothing and says what
holds it. The await is bound to the command INPUT starts: if the shell
ran nothing for it (a syntax error, a program read it) or the next
command it ran is another, tend says so and exits 1, never reporting
that other command's result.

In a session where an agent runs (Claude Code, Codex, Gemini CLI with
tend's hooks), INPUT is a prompt: typed into the agent's input box (a
multi-line or long one pasted), and tend waits for that turn to end and
prints the agent's answer. A failed turn (an API error) prints its error
and exits 3; an interrupted one exits 4. An agent busy with a turn, asking
for permission, or answering another await is refused (nothing typed).

If --timeout S passes first nothing is cancelled: tend prints the await's
id and exits 124; \`tend await --resume ID\` collects the result later
(results are kept for an hour after the command ends).

A server restart or crash while waiting cancels nothing either: tend
starts the server again (as every verb does) and goes on waiting for the
same command's result. The command is never typed twice.

  -t, --timeout S   stop waiting after S seconds (default: wait)
  -r, --resume ID   collect an earlier await instead of starting one
  -j, --json        { id, status, exitCode, output, command }; for an agent
                    { id, status, agent: { answer, outcome, error,
                    answerFrom, agentSessionId, turnId, durationMs, state } }`,
  options: { ...jsonOption, timeout: { type: 'string', short: 't' }, resume: { type: 'string', short: 'r' } },
  operands: '[TARGET] [INPUT...]',
  afterDash: 'INPUT...',
  exits: [
    { status: EXIT.timedOut, meaning: 'still running after --timeout S; nothing was cancelled' },
    { status: EXIT.agentTurnFailed, meaning: "an agent's turn failed (its error is printed)" },
    { status: EXIT.agentTurnInterrupted, meaning: "an agent's turn was interrupted before it answered" },
    { status: 'else', meaning: "the command's own exit status (or 1, 2 as above)" },
  ],
  async run({ args, client, stdout, stderr }) {
    const timeoutMs = parseTimeout(args.values.timeout);
    const deadline = timeoutMs === null ? null : Date.now() + timeoutMs;
    let reply: AwaitReply;
    let conn: AwaitConnection;
    if (typeof args.values.resume === 'string') {
      if (args.positionals.length > 0 || args.rest !== null) throw usageError('--resume ID takes no target or input');
      const id = args.values.resume;
      if (!AWAIT_ID_PATTERN.test(id)) throw usageError(`--resume takes the id \`tend await\` printed ("w" and 12 hex digits), not "${id}"`);
      conn = new AwaitConnection(client, id, stderr);
      reply = await conn.callRoute<AwaitReply>(API_ROUTES.getAwait, { id }, undefined, { waitMs: Math.min(timeoutMs ?? WAIT_PER_CALL_MS, WAIT_PER_CALL_MS) });
    } else {
      const [target, ...words] = args.positionals;
      const inputWords = args.rest ?? words;
      if (target === undefined) throw usageError('missing TARGET: the session to run INPUT in (its id, :name, or index from `tend ls`)');
      if (args.rest !== null && words.length > 0) throw usageError(`put the whole input after --: tend await ${target} -- ${[...words, ...inputWords].join(' ')}`);
      checkInput(inputWords.join(' '));
      // Chosen here, so a start whose answer a restart cut off is asked again by it (and not typed again).
      const id = newAwaitId();
      conn = new AwaitConnection(client, id, stderr);
      reply = await conn.callRoute<AwaitReply>(API_ROUTES.startAwait, { target }, {
        id,
        input: inputWords.join(' '),
        timeoutMs: Math.min(timeoutMs ?? WAIT_PER_CALL_MS, WAIT_PER_CALL_MS),
      });
    }
    reply = await collect(conn, reply, deadline);
    if (reply.status === 'pending') {
      if (args.values.json) printJson(stdout, reply);
      else {
        stdout.write(`${reply.id}\n`);
        stderr.write(`tend: still running after ${(timeoutMs ?? 0) / 1000} s (nothing was cancelled); collect it with \`tend await --resume ${reply.id}\`\n`);
      }
      return EXIT.timedOut;
    }
    if ('agent' in reply) return agentAnswer(reply, args.values.json === true, stdout, stderr);
    if (args.values.json) printJson(stdout, reply);
    else {
      if (reply.output === null) stderr.write("tend: the command's output had already scrolled out of the session's buffer when it ended\n");
      else stdout.write(reply.output ?? '');
    }
    if (reply.exitCode === null || reply.exitCode === undefined) {
      stderr.write('tend: the shell reported no exit status for the command\n');
      return 1;
    }
    return reply.exitCode;
  },
};

/** An agent's turn, done: the answer on stdout (the whole reply with --json); a failed or interrupted turn exits non-zero. */
function agentAnswer(reply: AwaitAgentDone, json: boolean, stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream): number {
  const turn = reply.agent;
  if (json) printJson(stdout, reply);
  else if (turn.outcome === 'failed') stderr.write(`tend: the agent's turn failed: ${turn.error ?? turn.answer ?? 'it gave no reason'}\n`);
  else if (turn.outcome === 'interrupted') stderr.write("tend: the agent's turn was interrupted before it answered (--json has what the screen showed)\n");
  else if (turn.answer === null) stderr.write('tend: the agent ended its turn without an answer (its hook gave none, and none could be read off the screen)\n');
  else stdout.write(turn.answer.endsWith('\n') ? turn.answer : `${turn.answer}\n`);
  switch (turn.outcome) {
    case 'answered':
      return EXIT.ok;
    case 'failed':
      return EXIT.agentTurnFailed;
    case 'interrupted':
      return EXIT.agentTurnInterrupted;
  }
}
