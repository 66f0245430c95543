// `tend attach TARGET`: show a session in this terminal and type into it.
// The terminal viewer itself is in ../attach/ and is imported only when the
// verb runs, so every other verb (and `tend help`) starts without it.
import { jsonOption, type Verb } from '../verb.js';
import { CliError, type TendClient } from '../client.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { AttachEventWriter, discardedOutput, type AttachEvent } from '../attach/attach-events.js';
import { RIDE_THROUGH_MS, RideThroughConnection } from '../ride-through.js';
import { holdNotices, sayHeldNotices } from '../build-notice.js';
import { DEFAULT_DETACH_PREFIX, DetachKeyError, parseDetachKey } from '../attach/detach-key.js';
import { describePrefixKeys } from '../attach/prefix-keys.js';
import { describeExit } from '../../protocol/exit-status.js';
import type { SessionChoice } from '../attach/session-picker.js';
import type { AttachOutcome } from '../attach/attach-session.js';
import { API_ROUTES, type SessionInfo } from '../../protocol/api/index.js';

type SessionSummary = Pick<SessionInfo, 'id' | 'name' | 'status' | 'exitCode' | 'exitSignal' | 'cols' | 'rows'>;

function label(s: { id: string; name: string | null }): string {
  return s.name ? `:${s.name} (${s.id})` : s.id;
}

/** How to name a session on the command line again. */
function targetOf(s: { id: string; name: string | null }): string {
  return s.name ? `:${s.name}` : s.id;
}

export const attachVerb: Verb = {
  name: 'attach',
  summary: 'show a session in this terminal and type into it',
  usage: `tend attach TARGET [--read-only] [--detach-key KEY] [--json]

Shows the session in this terminal: its screen, then everything it prints,
and what you type goes to it; your terminal keeps its own scrollback. Leave
with the detach key, Ctrl-\\ then d; the session keeps running. A line at the
bottom says so on entry, until the first output, a key or a few seconds
(tend keeps no status line: the session has every row). If the server
restarts or dies, the attach reconnects (starting the server when none is
running) and goes on where it was; what you type meanwhile is sent once it
is back.

Keys after the prefix:
${describePrefixKeys(DEFAULT_DETACH_PREFIX).map((line) => `  ${line}`).join('\n')}

  -r, --read-only       watch without typing or resizing the session
  -k, --detach-key KEY  the prefix, e.g. C-a or ^] (default C-\\;
                        also TEND_DETACH_KEY)
  -j, --json            say what happens as events, one JSON object a line
                        (below): with a terminal, on stderr, which must then
                        go elsewhere (2>FILE); without one (stdin or stdout
                        not a terminal), on stdout, and nothing is shown or
                        typed: the attach only watches

Events, each with "event" and "at" (Unix ms), all but error naming the
session by id and name: attached {cols, rows, readOnly}; reconnecting {why}
(the server went away) and reconnected {cols, rows, readOnly}; switched
{from, cols, rows, readOnly} (prefix s); and last, one of: detached
{reason: detach-key, signal (with signal), or server}; exited {code, signal}
(code null when a signal ended the program; a session that has already
exited gives it at once); error {code, message, ...}, as any verb's --json
error (no_session for an unknown target). A program's exit code, once it
ends:
  tend attach :build --json | tail -n 1`,
  // --handoff FD is not in the usage: the native viewer (viewer/handoff.c) passes it when it hands over to this one.
  options: { 'read-only': { type: 'boolean', short: 'r' }, 'detach-key': { type: 'string', short: 'k' }, ...jsonOption, handoff: { type: 'string' } },
  operands: 'TARGET',
  async run({ args, client, stdout, stderr }) {
    const target = args.positionals[0]!;
    const keySpec = typeof args.values['detach-key'] === 'string' ? args.values['detach-key'] : process.env.TEND_DETACH_KEY;
    let prefix = DEFAULT_DETACH_PREFIX;
    if (keySpec !== undefined && keySpec !== '') {
      try {
        prefix = parseDetachKey(keySpec);
      } catch (err) {
        if (err instanceof DetachKeyError) throw usageError(err.message);
        throw err;
      }
    }
    const json = args.values.json === true;
    if (typeof args.values.handoff === 'string') {
      if (json) throw usageError('--handoff and --json do not go together: a hand-off comes from the native viewer in a terminal');
      holdNotices();
      try {
        return await takeOver(args.values.handoff, target, client, stdout, stderr);
      } finally {
        sayHeldNotices(stderr);
      }
    }
    // Both ends a terminal: the session is shown. With --json and no terminal, the attach is a watcher.
    const terminal = process.stdin.isTTY === true && stdout.isTTY === true;
    if (!json && !process.stdin.isTTY) throw usageError('tend attach needs a terminal on its input; from scripts, `tend attach --json` reports what happens to a session (and its exit code), and `tend send` and `tend screen` type and read');
    if (json && terminal && stderr.isTTY) {
      throw usageError('with a terminal, tend attach --json writes its events to stderr, which is this terminal too: send them elsewhere (2>FILE), or pipe the output to watch for the events alone');
    }
    const events = json ? new AttachEventWriter(terminal ? stderr : stdout) : null;
    const watcher = json && !terminal;
    // A server of another build is said after the attach, under its last line, never over the screen;
    // where stderr carries the events (--json beside a terminal) it is not said at all: they are JSON.
    if (!watcher) holdNotices();
    try {
      return await showSession({ target, prefix, readOnly: watcher || args.values['read-only'] === true, watcher, events, client, stdout, stderr });
    } catch (err) {
      if (events === null || !(err instanceof CliError)) throw err;
      events.error(err);
      // A watcher's stderr says it too, as every verb's does; beside a terminal stderr holds the events, where it is said once.
      if (watcher) throw err;
      return err.exitCode;
    } finally {
      sayHeldNotices(events === null ? stderr : discardedOutput);
    }
  },
};

interface ShowOptions {
  target: string;
  prefix: number;
  readOnly: boolean;
  /** No terminal: nothing is shown and nothing read; the events say what happens. */
  watcher: boolean;
  /** --json: the events are written here. */
  events: AttachEventWriter | null;
  client: TendClient;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Looks the session up, shows it until the attach ends, and says how it ended; returns the exit status. */
async function showSession({ target, prefix, readOnly, watcher, events, client, stdout, stderr }: ShowOptions): Promise<number> {
  // A server that dies while answering (killed, restarting) is waited for, as the attach itself does later.
  const lookup = new RideThroughConnection(client, {
    away: 'the server went away; waiting for it to come back…',
    gaveUp: (why) => `the tend server went away and did not come back within ${RIDE_THROUGH_MS / 1000} s (${why}); \`tend attach ${target}\` to try again`,
  }, stderr);
  const session = await lookup.callRoute<SessionSummary>(API_ROUTES.getSession, { target });
  // Like tmux refusing to nest: a session shown inside itself echoes its own screen back without end.
  if (process.env.TEND_SESSION === session.id) {
    throw new CliError(`refusing to attach session ${label(session)} to itself: this terminal is that session; attach it from another terminal`);
  }
  if (session.status === 'exited') {
    // A script waiting for the program's end is told it, however late it came to wait.
    if (events) {
      events.write({ event: 'exited', id: session.id, name: session.name, code: session.exitCode, signal: session.exitSignal });
      return EXIT.ok;
    }
    throw new CliError(`session ${label(session)} ${describeExit({ code: session.exitCode, signal: session.exitSignal })}; \`tend screen ${target}\` shows its last screen`);
  }
  if (session.status === 'cold') throw new CliError(`session ${label(session)} is cold: its process is gone; \`tend revive ${target}\` starts a new shell in it`);
  if (session.status === 'elsewhere') throw new CliError(`session ${label(session)} is controlled by another tend server`);

  const { AttachSession } = await import('../attach/attach-session.js');
  const attach = new AttachSession({
    socketPath: () => client.currentServerSocket(),
    sessionId: session.id,
    sessionName: session.name,
    sessionSize: { cols: session.cols, rows: session.rows },
    readOnly,
    detachPrefix: prefix,
    // A watcher reads no keys and draws nothing; as a script it is sent the session's own stream, never a view for a size it lacks.
    ...(watcher ? { output: discardedOutput, clientKind: 'script' as const } : { input: process.stdin, output: stdout }),
    // With --json, what the attach would say in text is in the events.
    errors: events ? discardedOutput : stderr,
    ...(events ? { events: (event: AttachEvent) => events.write(event) } : {}),
    // A server that died under the attach is started again, as any verb starts it (saying nothing over the screen).
    ensureServer: async () => {
      if (!(await client.isRunning())) await client.startServer({ quiet: true });
    },
    listSessions: () => client.callRoute<SessionChoice[]>(API_ROUTES.listSessions),
    ...(process.env.TEND_SESSION ? { selfSessionId: process.env.TEND_SESSION } : {}),
  });
  return reportOutcome(await attach.start(), attach.session, { says: !watcher, events, stdout, stderr });
}

/**
 * Goes on with the attach the native viewer was running (`--handoff FD`, a
 * file it wrote, handoff.ts): no lookup (it looked the session up; a session
 * gone since is said by the server), the terminal as it left it.
 */
async function takeOver(fdText: string, target: string, client: TendClient, stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream): Promise<number> {
  const { HandoffError, readHandoff } = await import('../attach/handoff.js');
  let handoff;
  try {
    handoff = readHandoff(fdText);
  } catch (err) {
    if (err instanceof HandoffError) throw usageError(err.message);
    throw err;
  }
  if (handoff.session.id !== target) throw usageError(`--handoff: the hand-off is for session ${handoff.session.id}, not ${target}`);
  if (!process.stdin.isTTY || !stdout.isTTY) throw usageError('--handoff: the native viewer hands over a terminal, and this input or output is not one');
  const { AttachSession } = await import('../attach/attach-session.js');
  const attach = new AttachSession({
    socketPath: () => client.currentServerSocket(),
    sessionId: handoff.session.id,
    sessionName: handoff.session.name,
    readOnly: handoff.readOnly,
    detachPrefix: handoff.detachPrefix,
    input: process.stdin,
    output: stdout,
    errors: stderr,
    ensureServer: async () => {
      if (!(await client.isRunning())) await client.startServer({ quiet: true });
    },
    listSessions: () => client.callRoute<SessionChoice[]>(API_ROUTES.listSessions),
    ...(process.env.TEND_SESSION ? { selfSessionId: process.env.TEND_SESSION } : {}),
    handoff,
  });
  return reportOutcome(await attach.start(), attach.session, { says: true, events: null, stdout, stderr });
}

/** Says how the attach ended (in text, and as the last event with --json); returns the exit status. */
function reportOutcome(
  outcome: AttachOutcome,
  // `prefix s` may have switched to another session: the messages name the one shown last.
  shown: { id: string; name: string | null },
  // A watcher showed nothing, so it has no "[detached …]" to print under it (says false).
  { says, events, stdout, stderr }: { says: boolean; events: AttachEventWriter | null; stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
): number {
  switch (outcome.kind) {
    case 'detached':
      events?.write({ event: 'detached', ...shown, reason: outcome.reason });
      if (says) stdout.write(`[detached from ${label(shown)}]\n`);
      return EXIT.ok;
    case 'exited':
      events?.write({ event: 'exited', ...shown, code: outcome.code, signal: outcome.signal });
      if (says) stdout.write(`[session ${label(shown)} ${describeExit(outcome)}]\n`);
      return EXIT.ok;
    case 'lost': {
      const message = `lost the server and could not reconnect (${outcome.why}); session ${label(shown)} is still running — \`tend attach ${targetOf(shown)}\` to try again`;
      if (events) throw new CliError(message, EXIT.failed, { code: 'server_unreachable' });
      stderr.write(`tend: ${message}\n`);
      return EXIT.failed;
    }
    case 'error':
      if (events) throw new CliError(outcome.message, EXIT.failed, outcome.code ? { code: outcome.code } : {});
      stderr.write(`tend: ${outcome.message}\n`);
      return EXIT.failed;
    case 'signal':
      events?.write({ event: 'detached', ...shown, reason: 'signal', signal: outcome.signal });
      return EXIT.failed;
  }
}
