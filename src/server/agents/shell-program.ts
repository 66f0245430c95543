// Which programs an agent can run under: a shell, so when the agent ends (or
// is put to sleep) the shell and the session stay.
const SHELLS = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh']);

/** Whether argv[0] (a name or a path) is a shell. */
export function isShellProgram(argv0: string | undefined): boolean {
  return SHELLS.has((argv0 ?? '').split('/').pop() ?? '');
}
