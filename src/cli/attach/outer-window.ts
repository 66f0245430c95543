// The name of the terminal window `tend attach` paints into (SUBSCRIBE's
// window, docs/viewer-protocol.md): the server remembers which history rows
// each window holds, so attaching again from it adds only the rows it lacks.
// The same name as the native viewer makes (viewer/outer.c): the tty's device
// number, and the pid and start time of the session that owns the tty (the
// shell the window started), so a window opened later on the same tty is
// another. Linux only (/proc); elsewhere no window is named.
import { fstatSync, readFileSync } from 'node:fs';
import { MAX_WINDOW_KEY_BYTES } from '../../protocol/viewer-frames.js';

/** Fields of /proc/PID/stat after the command name (which may hold spaces): the 3rd field is index 0. */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return line.slice(line.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The window stdout is, or null (not this process's controlling terminal, or no /proc). */
export function outerWindowKey(): string | null {
  if (process.platform !== 'linux' || process.stdout.isTTY !== true) return null;
  let rdev: number;
  try {
    rdev = fstatSync(1).rdev;
  } catch {
    return null;
  }
  const own = statFields('self');
  // Fields 6 and 7: the session, and the device of the controlling terminal.
  const session = Number(own?.[3]);
  if (!Number.isSafeInteger(session) || session <= 0 || Number(own?.[4]) !== rdev) return null;
  const start = statFields(session)?.[19] ?? '0'; // field 22: start time
  const key = `tty-${rdev.toString(16)}-${session}-${/^\d+$/.test(start) ? start : '0'}`;
  return key.length <= MAX_WINDOW_KEY_BYTES ? key : null;
}
