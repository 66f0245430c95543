// How a completion script runs tend again for what only the server knows
// (session names): the same Node and entry point that wrote the script, so
// it works for an alias or a checkout off the PATH; when those have moved
// away, whatever `tend` is on the PATH.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fishQuote, posixQuote } from './shell-quote.js';

export interface TendCallback {
  /** The Node binary and tend's entry point, absolute. */
  node: string;
  entry: string;
}

/** bin/tend.js, from this file's place in the compiled tree (dist/src/cli/completion/). */
const ENTRY_POINT = fileURLToPath(new URL('../../../../bin/tend.js', import.meta.url));

export function thisTend(): TendCallback | null {
  return existsSync(ENTRY_POINT) ? { node: process.execPath, entry: ENTRY_POINT } : null;
}

/** __tend_call for bash and zsh, whose syntax is the same here. */
export function posixCallFunction(callback: TendCallback | null): string {
  if (callback === null) return '__tend_call() { command tend "$@"; }';
  const node = posixQuote(callback.node);
  const entry = posixQuote(callback.entry);
  return `__tend_call() {
  if [[ -x ${node} && -f ${entry} ]]; then
    ${node} ${entry} "$@"
  else
    command tend "$@"
  fi
}`;
}

/** __tend_call for fish. */
export function fishCallFunction(callback: TendCallback | null): string {
  if (callback === null) return 'function __tend_call\n    command tend $argv\nend';
  const node = fishQuote(callback.node);
  const entry = fishQuote(callback.entry);
  return `function __tend_call
    if test -x ${node} -a -f ${entry}
        ${node} ${entry} $argv
    else
        command tend $argv
    end
end`;
}
