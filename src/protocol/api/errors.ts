// Every error the HTTP API answers with: a stable code for scripts, the HTTP
// status it travels with, and what it means. The server answers only codes
// listed here (http/errors.ts takes the status from this table, so a code
// and its status cannot drift apart), the CLI and the page read them, and a
// test checks docs/api.md names each one.

export const API_ERRORS = {
  // The request itself is wrong.
  bad_request: { status: 400, meaning: 'a body or query that fails validation; the message names the field' },
  bad_json: { status: 400, meaning: 'a body that is not a JSON object' },
  bad_url: { status: 400, meaning: 'a request target that is no URL path' },
  bad_method: { status: 400, meaning: 'an HTTP method the server does not know' },
  bad_target: { status: 400, meaning: 'an empty session target' },
  incompatible_client: { status: 400, meaning: "a client whose API versions (its Tend-Api header) this server does not speak: nothing was done" },
  spawn_failed: { status: 400, meaning: 'a program that cannot be started' },
  pattern_too_slow: { status: 400, meaning: 'a search pattern that backtracks: testing a few lines took more than 2 s' },
  forbidden: { status: 403, meaning: 'a caller the 127.0.0.1 listener or the access gate does not let in, or a remote-access route asked by a caller that is not local' },
  not_found: { status: 404, meaning: 'an unknown route, workspace, command or await' },
  no_session: { status: 404, meaning: 'a target that matches no session; `candidates` holds the near ones' },
  method_not_allowed: { status: 405, meaning: 'a known route with another method' },
  request_timeout: { status: 408, meaning: 'a request whose head or body did not arrive in time' },
  ambiguous_target: { status: 409, meaning: 'a target that matches several sessions; `candidates` holds them' },
  conflict: { status: 409, meaning: 'a name in use, or a session already in another workspace' },
  session_not_running: { status: 409, meaning: 'a session that is not running (or ended during the call)' },
  not_revivable: { status: 409, meaning: 'a session that is running, so there is nothing to revive' },
  store_read_only: { status: 409, meaning: 'the store was opened read-only, so nothing new can be saved' },
  disk_read_only: { status: 409, meaning: 'a file system the request had to write is read-only' },
  no_shell_integration: { status: 409, meaning: "a session whose shell has shown no integration marks" },
  shell_busy: { status: 409, meaning: 'an await at a shell that is not at its prompt: nothing was typed' },
  no_agent: { status: 409, meaning: 'an agent route on a session where no agent was launched or reported' },
  session_has_agent: { status: 409, meaning: 'an await that expects a shell, on a session where an agent runs: nothing typed' },
  agent_busy: { status: 409, meaning: 'an await on an agent that already has one waiting for its turn' },
  agent_cannot_sleep: { status: 409, meaning: "an agent that cannot be put to sleep now (busy, asking permission, background tasks, or not under a shell); the message says which" },
  agent_wake_failed: { status: 409, meaning: "input to a sleeping agent that could not be woken: the input was dropped (never typed into the shell); the message says why" },
  await_id_taken: { status: 409, meaning: "an await id that is another session's await" },
  output_gone: { status: 410, meaning: "a command whose output the session no longer keeps (its rows left the history)" },
  session_ended: { status: 410, meaning: 'an await whose session ended before its command did' },
  input_not_run: { status: 410, meaning: "an await whose line did not start the command that followed it" },
  command_forgotten: { status: 410, meaning: "an await whose command the session's index no longer keeps" },
  too_large: { status: 413, meaning: "a body over the route's limit" },
  search_too_long: { status: 422, meaning: 'a search that took more than 30 s in all' },
  too_many_awaits: { status: 429, meaning: 'more awaits held than the server keeps' },
  request_too_large: { status: 431, meaning: 'a request line and headers over 16 KiB' },
  internal: { status: 500, meaning: 'a bug: logged with its stack in the server log, answered without one' },
  input_interrupted: { status: 503, meaning: 'the server went away while the holder took input; send again with the same key' },
  disk_full: { status: 507, meaning: 'the disk had no room for a write the request needed' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

export function statusOfError(code: ApiErrorCode): number {
  return API_ERRORS[code].status;
}

/** The body of every error answer. Details (`candidates`, `arrived`, `running`…) sit beside code and message. */
export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    /** Targets or names near the one asked for (no_session, ambiguous_target, not_found of a workspace). */
    candidates?: string[];
    [detail: string]: unknown;
  };
}
