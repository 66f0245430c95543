// Who holds a session's terminal, for `await`'s check before it types: the
// shell's marks say whether it shows its prompt, but marks can be printed by
// any program (and a program started from a script may read the terminal
// without the shell marking a command). The kernel's foreground process
// group of the PTY is the other witness: input goes to that group.
import { readFileSync } from 'node:fs';

/** Interactive shells: one nested in the session's shell reads its own prompt, as the marks then say. */
const SHELL_NAMES = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh']);

/** The name of process `pid` where the system tells it (Linux's /proc), else null. */
export function processName(pid: number): string | null {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name === '' ? null : name;
  } catch {
    return null;
  }
}

/**
 * What holds the terminal instead of the session's shell, as words for a
 * message ("`cat` (process group 4242)"), or null when the shell (or a
 * shell nested in it) does, or the holder could not tell (pgid 0).
 */
export function foregroundIntruder(fg: { pgid: number; childPid: number }): string | null {
  if (fg.pgid === 0 || fg.pgid === fg.childPid) return null;
  const name = processName(fg.pgid);
  if (name !== null && SHELL_NAMES.has(name.replace(/^-/, ''))) return null;
  return name === null ? `process group ${fg.pgid}` : `\`${name}\` (process group ${fg.pgid})`;
}
