import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { INTEGRATED_SHELLS, isIntegratedShell, shellIntegration } from '../../shell-integration/index.js';

export const shellIntegrationVerb: Verb = {
  name: 'shell-integration',
  summary: "print the snippet that makes a shell report its commands",
  usage: `tend shell-integration bash|zsh|fish [--json]

Prints a snippet for the shell's rc file. With it the shell marks each
prompt, command line, output start and exit status (OSC 133 and 633) and
its directory (OSC 7), which \`tend commands\`, \`tend output\` and \`tend await\`
read. Shells that tend starts itself load it without this.

  bash:  eval "$(tend shell-integration bash)"     in ~/.bashrc
  zsh:   eval "$(tend shell-integration zsh)"      in ~/.zshrc
  fish:  tend shell-integration fish | source      in ~/.config/fish/config.fish

  -j, --json   { shell, snippet }`,
  options: { ...jsonOption },
  operands: 'SHELL',
  async run({ args, stdout }) {
    const shell = args.positionals[0]!;
    if (!isIntegratedShell(shell)) throw usageError(`no shell integration for "${shell}"; there is one for ${INTEGRATED_SHELLS.join(', ')}`);
    if (args.values.json) printJson(stdout, { shell, snippet: shellIntegration(shell) });
    else stdout.write(shellIntegration(shell));
    return 0;
  },
};
