// `tend attach TARGET`: show a session in this terminal and type into it.
// The terminal viewer itself is in ../attach/ and is imported only when the
// verb runs, so every other verb (and `tend help`) starts without it.
import type { Verb } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { RIDE_THROUGH_MS, RideThroughConnection } from '../ride-through.js';
import { DEFAULT_DETACH_PREFIX, DetachKeyError, parseDetachKey } from '../attach/detach-key.js';
import { describePrefixKeys } from '../attach/prefix-keys.js';
import { describeExit } from '../../protocol/exit-status.js';
import type { SessionChoice } from '../attach/session-picker.js';
import { API_ROUTES, type SessionInfo } from '../../protocol/api/index.js';

type SessionSummary = Pick<SessionInfo, 'id' | 'name' | 'status' | 'exitCode' | 'exitSignal'>;

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
  usage: `tend attach TARGET [--read-only] [--detach-key KEY]

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
                        also TEND_DETACH_KEY)`,
  options: { 'read-only': { type: 'boolean', short: 'r' }, 'detach-key': { type: 'string', short: 'k' } },
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
    if (!process.stdin.isTTY) throw usageError('tend attach needs a terminal on its input; use `tend send` and `tend screen` from scripts');
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
      throw new CliError(`session ${label(session)} ${describeExit({ code: session.exitCode, signal: session.exitSignal })}; \`tend screen ${target}\` shows its last screen`);
    }
    if (session.status === 'cold') throw new CliError(`session ${label(session)} is cold: its process is gone; \`tend revive ${target}\` starts a new shell in it`);
    if (session.status === 'elsewhere') throw new CliError(`session ${label(session)} is controlled by another tend server`);

    const { AttachSession } = await import('../attach/attach-session.js');
    const attach = new AttachSession({
      socketPath: client.paths.serverSocket,
      sessionId: session.id,
      sessionName: session.name,
      readOnly: args.values['read-only'] === true,
      detachPrefix: prefix,
      input: process.stdin,
      output: stdout,
      errors: stderr,
      // A server that died under the attach is started again, as any verb starts it.
      ensureServer: async () => {
        if (!(await client.isRunning())) await client.startServer();
      },
      listSessions: () => client.callRoute<SessionChoice[]>(API_ROUTES.listSessions),
      ...(process.env.TEND_SESSION ? { selfSessionId: process.env.TEND_SESSION } : {}),
    });
    const outcome = await attach.start();
    // `prefix s` may have switched to another session: the messages name the one shown last.
    const shown = attach.session;
    switch (outcome.kind) {
      case 'detached':
        stdout.write(`[detached from ${label(shown)}]\n`);
        return 0;
      case 'exited': {
        stdout.write(`[session ${label(shown)} ${describeExit(outcome)}]\n`);
        return 0;
      }
      case 'lost':
        stderr.write(`tend: lost the server and could not reconnect (${outcome.why}); session ${label(shown)} is still running — \`tend attach ${targetOf(shown)}\` to try again\n`);
        return 1;
      case 'error':
        stderr.write(`tend: ${outcome.message}\n`);
        return 1;
      case 'signal':
        return 1;
    }
  },
};
