// Shell integration: the snippets that make a shell report its prompts and
// commands to the terminal, and the injection that loads them into shells
// tend starts.
//
// What a shell sends with a snippet loaded (ST may be BEL or ESC \):
//   OSC 133;A            prompt starts            (FinalTerm)
//   OSC 133;B            prompt ends, input starts
//   OSC 633;E;<line>     the command line, escaped (VS Code)
//   OSC 133;C            Enter was pressed, output starts
//   OSC 133;D;<status>   the command finished with exit status <status>
//   OSC 7;file://<host><path>  the cwd, path percent-encoded byte by byte
//
// The 633;E escaping: '\' becomes '\\', ';' becomes '\x3b', and each control
// byte 0x01-0x1f or 0x7f becomes '\xHH' (two hex digits). Nothing else is
// escaped, so UTF-8 passes through. The payload then never holds BEL, ESC or
// ';', and a reader splits on ';' before unescaping.
import { BASH_SNIPPET } from './bash.js';
import { FISH_SNIPPET } from './fish.js';
import { ZSH_SNIPPET } from './zsh.js';

export type IntegratedShell = 'bash' | 'zsh' | 'fish';

export const INTEGRATED_SHELLS: readonly IntegratedShell[] = ['bash', 'zsh', 'fish'];

export function isIntegratedShell(name: string): name is IntegratedShell {
  return (INTEGRATED_SHELLS as readonly string[]).includes(name);
}

/** The snippet for the shell's rc file (what `tend shell-integration SHELL` prints). */
export function shellIntegration(shell: IntegratedShell): string {
  switch (shell) {
    case 'bash':
      return BASH_SNIPPET;
    case 'zsh':
      return ZSH_SNIPPET;
    case 'fish':
      return FISH_SNIPPET;
  }
}

export { injectShellIntegration, type InjectedLaunch } from './inject.js';
export { escapeCommandLine, unescapeCommandLine } from './command-line-escape.js';
