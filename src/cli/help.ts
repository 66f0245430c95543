// `tend help` and `tend VERB --help`, generated from the verb table (as
// tmux's usage is from its cmd_entry), each ending with what the exit
// statuses mean.
import { exitStatusHelp } from './exit-codes.js';
import { CLI_ERROR_CODES } from './cli-error.js';
import type { Verb } from './verb.js';

export function mainHelp(verbs: readonly Verb[]): string {
  const width = Math.max(...verbs.map((v) => v.name.length));
  return `tend: terminals that outlive everything around them

usage: tend VERB [ARGS...]   (tend help VERB, or tend VERB --help, for more)

${verbs.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`).join('\n')}

With --json, a verb prints JSON, and an error is one JSON object on stderr:
{"error": {"code", "message", "candidates"?, ...}}, the API's code when the
server refused (docs/api.md), else one of the CLI's own:
${Object.keys(CLI_ERROR_CODES).join(', ')}.

${exitStatusHelp()}

Environment: TEND_HOME (default ~/.tend) holds the store, checkpoints and logs.
`;
}

export function verbHelp(verb: Verb): string {
  return `${verb.usage}\n\n${exitStatusHelp(verb.exits)}\n`;
}
