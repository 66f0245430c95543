// What a session's shell ran, and running more: the command index
// (/v1/sessions/:t/commands, /output) and await (/v1/sessions/:t/await,
// /v1/awaits/:id): a command at a shell's prompt, or a prompt at the
// session's agent (awaits/agent-await.ts). docs/api.md documents every route.
import type { Router, Reply } from './router.js';
import {
  AWAIT_ID_PATTERN,
  DEFAULT_AWAIT_TIMEOUT_MS,
  MAX_AWAIT_INPUT_BYTES,
  MAX_AWAIT_WAIT_MS,
  MAX_LISTED_COMMANDS,
  COMMAND_NUMBER_PATTERN,
  type AwaitAgentDone,
  type AwaitDone,
  type AwaitPending,
  type CommandOutputReply,
  type CommandRecord,
} from '../../protocol/api/index.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { optInt, optString, reqString } from './validate.js';
import { queryWholeNumber } from './request-parts.js';
import type { SessionRegistry } from '../session-registry.js';
import type { Session } from '../session.js';
import type { CommandInfo } from '../commands/index.js';
import type { HostedCommands } from '../screen-host/index.js';
import type { CommandsState } from '../screen-host/messages.js';
import { describeExit } from '../../protocol/exit-status.js';
import {
  AWAIT_RESULT_KEEP_MS,
  TypingTurns,
  foregroundIntruder,
  quoteLine,
  type AwaitEntry,
  type AwaitRegistry,
  type AwaitSession,
} from '../awaits/index.js';
import { AgentBusyError, type AgentAwaitEntry, type AgentAwaits } from '../awaits/agent-await.js';

/**
 * A shell that has just started may not have drawn its first prompt (and its
 * marks) yet. Kept under 5 s: Node's default HTTP agent drops a socket idle
 * that long, and this wait happens before the first byte of the answer.
 */
const FIRST_MARKS_WAIT_MS = 4000;
/** After a command's end mark, how long the shell may take to draw its next prompt (its B mark). */
const PROMPT_WAIT_MS = 2000;
/** How long the next await at a session waits for the previous one's command to start (its C mark). */
const COMMAND_START_WAIT_MS = 1000;
/** What a shell_busy refusal tells the caller to do. */
const BUSY_HINT = (session: Session): string =>
  `Nothing was typed. Wait for it to finish, or end it (\`tend send ${session.label} --keys C-c\`), then await again`;
const AWAIT_BODY_LIMIT_BYTES = 2 * MAX_AWAIT_INPUT_BYTES;

export interface CommandRoutesDeps {
  registry: SessionRegistry;
  awaits: AwaitRegistry;
  /** Awaits on sessions' agents: their turns, not commands. */
  agentAwaits: AgentAwaits;
  /** The session's command index; null if it has none. */
  commandsOf(session: Session): HostedCommands | null;
}

const NO_MARKS_HINT =
  "tend learns where commands start and end from the shell's integration marks: start the session with tend's default shell " +
  '(integration is loaded automatically) or add `eval "$(tend shell-integration bash)"` (zsh: same; fish: `tend shell-integration fish | source`) to the rc file';

export function addCommandRoutes(router: Router, deps: CommandRoutesDeps): void {
  const { registry, awaits, agentAwaits } = deps;
  const turns = new TypingTurns();
  const indexOf = (session: Session): HostedCommands => {
    const index = deps.commandsOf(session);
    if (index === null) throw new ApiError('no_shell_integration', `session ${session.label} has no command index. ${NO_MARKS_HINT}`);
    return index;
  };

  router.add('listCommands', async (req) => {
    const session = registry.resolve(req.params.target ?? '');
    // Read after every byte fed so far is parsed: the index has then seen every mark in them.
    const { commands, running } = await indexOf(session).state();
    return { status: 200, json: commands.slice(-MAX_LISTED_COMMANDS).map((c) => commandRecord(c, c.number === running)) };
  });

  router.add('commandOutput', async (req) => {
    const session = registry.resolve(req.params.target ?? '');
    const index = indexOf(session);
    const which = req.query.get('cmd') ?? 'last';
    if (which !== 'last' && !COMMAND_NUMBER_PATTERN.test(which)) throw badRequest(`"cmd" must be a command number (from \`tend commands\`) or "last", not ${JSON.stringify(which)}`);
    const { commands: list, atPrompt } = await index.state();
    let command: CommandInfo | undefined;
    if (which === 'last') {
      command = list[list.length - 1];
      if (command === undefined) throw notFound(`session ${session.label} has no indexed commands yet. ${atPrompt ? '' : NO_MARKS_HINT}`.trim());
    } else {
      command = list.find((c) => c.number === Number(which));
      if (command === undefined) {
        const range = list.length === 0 ? 'it has no indexed commands' : `it has commands ${list[0]!.number}-${list[list.length - 1]!.number}`;
        throw notFound(`session ${session.label} has no command ${which}; ${range}`);
      }
    }
    const output = await index.output(command.number);
    if (output === null) {
      throw new ApiError('output_gone', `command ${command.number}'s output has left the scrollback (tend keeps the last rows of each session; see TEND_SCROLLBACK_ROWS)`);
    }
    return {
      status: 200,
      json: { number: command.number, commandLine: command.commandLine, text: output.text, complete: output.complete, exitCode: command.exitCode } satisfies CommandOutputReply,
    };
  });

  router.add('startAwait', async (req) => {
    const session = registry.resolve(req.params.target ?? '');
    const body = await req.json(AWAIT_BODY_LIMIT_BYTES);
    const input = reqString(body, 'input', { max: MAX_AWAIT_INPUT_BYTES });
    if (input.trim() === '') throw badRequest('"input" is empty: give the command line to run');
    const timeoutMs = optInt(body, 'timeoutMs', 0, MAX_AWAIT_WAIT_MS) ?? DEFAULT_AWAIT_TIMEOUT_MS;
    const id = optString(body, 'id', { pattern: AWAIT_ID_PATTERN, hint: '"w" and 12 hex digits' });
    if (body.stage !== undefined && typeof body.stage !== 'boolean') throw badRequest('"stage" must be true or false');
    const stage = body.stage === true;
    if (body.expect !== undefined && body.expect !== 'shell' && body.expect !== 'agent') throw badRequest('"expect" must be "shell" or "agent"');
    const expect = body.expect as 'shell' | 'agent' | undefined;
    // The wait for the first marks counts against the caller's timeout.
    const deadline = Date.now() + timeoutMs;
    if (session.status !== 'running') throw new ApiError('session_not_running', `session ${session.label} is ${session.status}; nothing can run in it`);
    // A caller that lost its answer asks again with the same id: the await it
    // started is answered, whatever the session's agent has done since, and
    // nothing is typed twice.
    const earlierAgentAwait = id === undefined ? undefined : agentAwaits.get(id);
    if (earlierAgentAwait !== undefined) {
      if (earlierAgentAwait.sessionId !== session.id) throw new ApiError('await_id_taken', `await ${id} belongs to another session; choose another id`);
      await earlierAgentAwait.wait(Math.max(0, deadline - Date.now()));
      return agentAwaitReply(earlierAgentAwait);
    }
    const agent = agentAwaits.agentOf(session.id);
    const retried = id !== undefined && awaits.get(id) !== undefined;
    // A caller that said what it means the input for is never surprised: a
    // command line never reaches an agent's input box, nor a prompt a shell.
    if (!retried && expect === 'shell' && agent !== undefined) {
      throw new ApiError('session_has_agent', `an agent runs in session ${session.label}: the input would be typed into its input box as a prompt, not run by the shell. Nothing was typed`);
    }
    if (!retried && expect === 'agent' && agent === undefined) {
      throw new ApiError('no_agent', `no agent runs in session ${session.label} (none was started or reported, or it exited): the input would be run by the shell as a command. Nothing was typed`);
    }
    if (agent !== undefined && !retried) {
      // The session's agent takes the input as a prompt; its turn is the await's.
      let entry: AgentAwaitEntry;
      try {
        entry = agentAwaits.start(agent, session, input, { id });
      } catch (err) {
        if (err instanceof AgentBusyError) throw new ApiError('agent_busy', err.message, err.awaitId === null ? undefined : { await: err.awaitId });
        throw err;
      }
      await entry.wait(Math.max(0, deadline - Date.now()));
      return agentAwaitReply(entry);
    }
    const index = indexOf(session);
    const entry = await turns.take(session.id, async () => {
      // A caller that lost its answer asks again with the same id: the await
      // it started is answered, and nothing is typed twice.
      const earlier = id === undefined ? undefined : awaits.get(id);
      if (earlier !== undefined) {
        if (earlier.sessionId !== session.id) throw new ApiError('await_id_taken', `await ${id} belongs to another session; choose another id`);
        return earlier;
      }
      // A session that ends meanwhile (SessionStateError) and a full await table are answered by http/core-errors.ts.
      const afterNumber = await checkAtPrompt(session, index);
      const started = await awaits.start(awaitSession(session), index, input, { afterNumber, id, stage });
      // The next turn checks the prompt once this line's command is under way.
      await waitForState(session, index, (s) => s.running !== null || lastNumberOf(s) > afterNumber, COMMAND_START_WAIT_MS).catch(() => undefined);
      return started;
    });
    await entry.wait(Math.max(0, deadline - Date.now()));
    return awaitReply(entry);
  });

  router.add('getAwait', async (req) => {
    const id = req.params.id ?? '';
    const entry = awaits.get(id);
    const agentEntry = entry === undefined ? agentAwaits.get(id) : undefined;
    if (entry === undefined && agentEntry === undefined) {
      throw notFound(`no await "${id}": it never existed, its result was collected more than ${AWAIT_RESULT_KEEP_MS / 60_000} minutes after the command ended, or it awaited an agent's turn and the server has restarted since`);
    }
    const waitMs = queryWholeNumber(req.query, 'waitMs', 0, MAX_AWAIT_WAIT_MS, 0);
    if (waitMs > 0) await (entry ?? agentEntry)!.wait(waitMs);
    return entry !== undefined ? awaitReply(entry) : agentAwaitReply(agentEntry!);
  });
}

function commandRecord(c: CommandInfo, running: boolean): CommandRecord {
  return { number: c.number, commandLine: c.commandLine, exitCode: c.exitCode, running, startedAt: c.startedAt, endedAt: c.endedAt, cwd: c.cwd };
}

function awaitReply(entry: AwaitEntry): Reply {
  const outcome = entry.outcome;
  if (outcome.state !== 'done') return unfinishedReply(entry);
  return { status: 200, json: { ...replyBase(entry), status: 'done', ...outcome.result } satisfies AwaitDone };
}

/** An agent await's answer: its turn's result once done (a failed turn is done too: outcome failed). */
function agentAwaitReply(entry: AgentAwaitEntry): Reply {
  const outcome = entry.outcome;
  if (outcome.state !== 'done') return unfinishedReply(entry);
  return { status: 200, json: { ...replyBase(entry), status: 'done', agent: outcome.result } satisfies AwaitAgentDone };
}

function replyBase(entry: AwaitEntry<unknown>): { id: string; session: string; location: string } {
  return { id: entry.id, session: entry.sessionId, location: entry.location };
}

/** 202 while pending; a failed await is an error answer with its id. */
function unfinishedReply(entry: AwaitEntry<unknown>): Reply {
  const outcome = entry.outcome;
  if (outcome.state === 'failed') throw new ApiError(outcome.code, outcome.message, { id: entry.id });
  return { status: 202, json: { ...replyBase(entry), status: 'pending' } satisfies AwaitPending, headers: { location: entry.location } };
}

/** A session as an await types into and watches it. */
export function awaitSession(session: Session): AwaitSession {
  return {
    id: session.id,
    label: session.label,
    inputAt: (writer, at, bytes) => session.inputAt(writer, at, bytes),
    inputTaken: (writer) => session.inputTaken(writer),
    isLive: () => !session.isDisposed && session.status === 'running',
    endedHow: () => sessionEnding(session),
    onOutput: (listener) => session.onOutput(listener),
  };
}

/** How a session that is no longer running ended, in words (an await that outlived it says so). */
function sessionEnding(session: Session): string {
  if (session.isDisposed) return 'it was killed';
  switch (session.status) {
    case 'exited': {
      const { exitCode, exitSignal } = session.info();
      return `its program ${describeExit({ code: exitCode, signal: exitSignal })}`;
    }
    case 'cold':
      return 'its process is gone (the session is cold)';
    case 'elsewhere':
      return 'another tend server controls it now';
    case 'running':
      return 'it is running';
  }
}

/**
 * Waits until the shell shows its prompt with no command running, and
 * returns its last command number (the await's command is the next one).
 * Refuses with 409 when it does not: input typed then would go to whatever
 * holds the terminal (a running command, a program in the foreground), not
 * to the shell, and an await of it could only ever settle on some other
 * command.
 */
async function checkAtPrompt(session: Session, index: HostedCommands): Promise<number> {
  const marked = await waitForState(session, index, hasMarks, FIRST_MARKS_WAIT_MS);
  if (!hasMarks(marked)) {
    throw new ApiError('no_shell_integration', `session ${session.label} has shown no shell integration marks, so tend cannot tell when a command ends. ${NO_MARKS_HINT}`);
  }
  // Right after a command ends the shell is still drawing its next prompt.
  const state = await waitForState(session, index, (s) => s.atPrompt || s.running !== null || s.continuation, PROMPT_WAIT_MS);
  const last = lastNumberOf(state);
  if (state.continuation) {
    throw new ApiError(
      'shell_busy',
      `session ${session.label}'s shell waits for the rest of a command (it shows its \`>\` continuation prompt: the line before left a quote, a \`do\`, a \`|\` or the like open), so input typed now would become part of that command. Nothing was typed. Finish the command, or give it up (\`tend send ${session.label} --keys C-c\`), then await again`,
      { continuation: true },
    );
  }
  if (state.running !== null) {
    const command = state.commands.find((c) => c.number === state.running);
    const holder = foregroundIntruder(await session.foreground());
    const holds = holder === null ? '' : ` (the terminal's foreground process is ${holder}, not the shell)`;
    throw new ApiError('shell_busy', `session ${session.label} is running command ${state.running} (${quoteLine(command?.commandLine ?? '')})${holds}, so its shell is not at its prompt: input typed now would go to that command, not to the shell. ${BUSY_HINT(session)}`, { running: state.running });
  }
  if (!state.atPrompt) {
    throw new ApiError('shell_busy', `session ${session.label}'s shell has not shown its prompt (no prompt mark since its last command): input typed now might not reach the shell. ${BUSY_HINT(session)}`);
  }
  const intruder = foregroundIntruder(await session.foreground());
  if (intruder !== null) {
    throw new ApiError('shell_busy', `session ${session.label}'s terminal is held by ${intruder}, not by its shell, although the shell's marks show a prompt: input typed now would go to that program. ${BUSY_HINT(session)}`);
  }
  return last;
}

/** The state when `ready` holds, or the last one read when `timeoutMs` passes first. */
async function waitForState(session: Session, index: HostedCommands, ready: (state: CommandsState) => boolean, timeoutMs: number): Promise<CommandsState> {
  const first = await index.state();
  if (ready(first)) return first;
  return new Promise((resolve) => {
    let settled = false;
    let asking = false;
    let again = false;
    let latest = first;
    const finish = (state: CommandsState) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      subscription.dispose();
      resolve(state);
    };
    const ask = (): void => {
      // One question at a time; output that comes meanwhile is asked about after it.
      if (settled) return;
      if (asking) {
        again = true;
        return;
      }
      asking = true;
      again = false;
      void index.state().then((state) => {
        asking = false;
        latest = state;
        if (ready(state)) finish(state);
        else if (again) ask();
      }, () => finish(latest));
    };
    const timer = setTimeout(() => void index.state().then(finish, () => finish(latest)), timeoutMs);
    // onOutput sees bytes before they are parsed; the marks count once the screen has parsed them.
    const subscription = session.onOutput(ask);
  });
}

function lastNumberOf(state: CommandsState): number {
  return state.commands[state.commands.length - 1]?.number ?? 0;
}

/** Whether the index has seen a shell's marks (in every byte fed before the state was read). */
function hasMarks(state: CommandsState): boolean {
  return state.commands.length > 0 || state.atPrompt || state.running !== null || state.continuation;
}
