// The server's log: one line per event, to a file that is rotated when it
// grows, because a server that runs for weeks must not fill the disk.
import { appendFileSync, renameSync, statSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isPlainlyWorded } from '../common/disk-trouble.js';

const LOG_ROTATE_BYTES = 5 * 1024 * 1024;
const ROTATE_CHECK_EVERY_LINES = 200;

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

/**
 * An error for a log line. A full or read-only disk, or a store error, is
 * its message alone: it says what to do, and a stack would only bury that.
 * Anything else may be a bug, and keeps its stack.
 */
export function describeError(err: unknown): string {
  if (err instanceof Error) return isPlainlyWorded(err) ? err.message : (err.stack ?? err.message);
  return String(err);
}

export function createFileLogger(file: string | null): Logger {
  let lines = 0;
  // A log that cannot be written must never take the server down, nor keep it
  // from starting: a read-only TEND_HOME is the store's to report, clearly.
  let dirReady = false;
  const write = (level: string, message: string) => {
    const line = `${new Date().toISOString()} ${level} ${message}\n`;
    if (!file) {
      process.stderr.write(line);
      return;
    }
    try {
      if (!dirReady) {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        dirReady = true;
      }
      if (++lines % ROTATE_CHECK_EVERY_LINES === 0 && statSync(file).size > LOG_ROTATE_BYTES) {
        renameSync(file, `${file}.1`);
      }
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // Dropped: there is nowhere else a detached server could say it.
    }
  };
  return {
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m, err) => write('error', err === undefined ? m : `${m}: ${describeError(err)}`),
  };
}
