// The environment a new session's program starts with, from a request that
// creates one (POST /v1/sessions, POST /v1/sessions/:target/split).
//
// TERM is the terminal the program believes it talks to. Whatever the session
// is shown in, its screen is xterm.js's model (the server's headless xterm,
// the browser's xterm), so TERM says xterm-256color, which that model
// implements, and not the TERM of whoever asked for the session (xterm-kitty,
// tmux-256color: their programs then emit sequences the model drops and a
// browser cannot show). A caller asks for another with "term", or by giving
// TERM in an env of its own. COLORTERM is left as the caller's: `tend attach`
// hands the program's bytes to the caller's terminal as they are, so a
// terminal without truecolor must not be promised it.
import { badRequest } from './errors.js';
import { optString, optStringMap } from './validate.js';
import { envNameProblem, envValueProblem } from '../../protocol/env-name.js';
import { TERM_NAME_PATTERN as TERM_PATTERN } from '../../protocol/api/index.js';

export const DEFAULT_SESSION_TERM = 'xterm-256color';
const MAX_ENV_ENTRIES = 4096;
const MAX_ENV_ENTRY_CHARS = 128 * 1024;

export function sessionEnvFromRequest(body: Record<string, unknown>): Record<string, string> {
  const term = optString(body, 'term', { pattern: TERM_PATTERN, hint: 'must be a terminal type like "xterm-256color": 1-64 letters, digits, ".", "_", "+" or "-"' });
  const given = optStringMap(body, 'env', { maxItems: MAX_ENV_ENTRIES, maxLength: MAX_ENV_ENTRY_CHARS });
  if (given !== undefined) checkEnvEntries(given);
  const givenTerm = given?.TERM === '' ? undefined : given?.TERM;
  if (givenTerm !== undefined && !TERM_PATTERN.test(givenTerm)) throw badRequest(`"env.TERM" must be a terminal type like "xterm-256color", not ${JSON.stringify(givenTerm)}`);
  // Without an env of its own the session gets the server's, whose TERM is only the terminal that happened to start the server.
  const env = given ?? withoutTerm(process.env as Record<string, string>);
  return { ...env, TERM: term ?? givenTerm ?? DEFAULT_SESSION_TERM };
}

/** Every name and value must reach the program as given (see protocol/env-name.ts). */
function checkEnvEntries(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    const nameProblem = envNameProblem(name);
    if (nameProblem !== null) {
      throw badRequest(`"env" has a variable name that ${nameProblem} (${JSON.stringify(name)}): a name must be non-empty and hold no "=" or NUL`);
    }
    const valueProblem = envValueProblem(value);
    if (valueProblem !== null) throw badRequest(`"env.${name}" ${valueProblem}, which an environment variable cannot hold`);
  }
}

function withoutTerm(env: Record<string, string>): Record<string, string> {
  const copy = { ...env };
  delete copy.TERM;
  return copy;
}
