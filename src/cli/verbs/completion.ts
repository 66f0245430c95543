import type { Verb } from '../verb.js';
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { COMPLETED_SHELLS, completionScript, isCompletedShell } from '../completion/index.js';
import { sessionTargets } from '../completion/session-targets.js';

/**
 * The verb is made from the verb table it completes, which holds it: the
 * table is passed as a function, read when the verb runs, so this file need
 * not import the dispatcher that imports it.
 */
export function completionVerb(verbTable: () => readonly Verb[]): Verb {
  return {
    name: 'completion',
    summary: 'print the shell completion script (bash, zsh, fish)',
    usage: `tend completion bash|zsh|fish

Prints the script that makes the shell complete tend's verbs, their options,
and session targets (:name, or the id of a session without a name), which it
asks a running server for as you type; it never starts one.

  bash:  source <(tend completion bash)     in ~/.bashrc
  zsh:   source <(tend completion zsh)      in ~/.zshrc, after compinit
  fish:  tend completion fish > ~/.config/fish/completions/tend.fish

Load it again after upgrading tend: it holds the verbs of the tend that wrote it.`,
    // --list is for the scripts themselves (what only the server knows), so the usage leaves it out.
    options: { list: { type: 'string' } },
    // Optional only for the scripts' --list; run() asks for it otherwise.
    operands: '[SHELL]',
    async run({ args, client, stdout }) {
      const list = args.values.list;
      if (typeof list === 'string') {
        if (list !== 'sessions') throw usageError(`--list takes "sessions", not "${list}"`);
        for (const target of await sessionTargets(client)) stdout.write(`${target}\n`);
        return 0;
      }
      const [shell] = args.positionals;
      if (shell === undefined) throw usageError(`missing SHELL: ${COMPLETED_SHELLS.join(', ')}`);
      if (!isCompletedShell(shell)) throw usageError(`no completion for "${shell}"; there is one for ${COMPLETED_SHELLS.join(', ')}`);
      stdout.write(completionScript(shell, verbTable()));
      return 0;
    },
  };
}
