// The gate's log lines: one per refusal and per sign-in, naming the caller's
// class, address, method, path (without its query) and the reason, never a
// token or a cookie. Refusals are limited to a number a minute, so a flood of
// bad requests cannot fill the disk; what was left out is counted in the next
// line that is written.
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';

const MAX_REFUSAL_LINES_PER_MINUTE = 60;
const MINUTE_MS = 60_000;
const MAX_PATH_CHARS = 120;

export class GateLog {
  private windowStart = 0;
  private written = 0;
  private dropped = 0;

  constructor(private readonly log: Logger, private readonly now: Clock) {}

  refused(req: IncomingMessage, caller: string, reason: string): void {
    const now = this.now();
    if (now - this.windowStart >= MINUTE_MS) {
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written >= MAX_REFUSAL_LINES_PER_MINUTE) {
      this.dropped++;
      return;
    }
    this.written++;
    const more = this.dropped > 0 ? ` (${this.dropped} more refusals were not logged)` : '';
    this.dropped = 0;
    this.log.warn(`remote access: refused ${describe(req, caller)}: ${reason}${more}`);
  }

  signedIn(req: IncomingMessage, caller: string, how: string): void {
    this.log.info(`remote access: signed in ${describe(req, caller)} ${how}`);
  }
}

function describe(req: IncomingMessage, caller: string): string {
  const path = (req.url ?? '/').split('?')[0]!.slice(0, MAX_PATH_CHARS);
  return `${caller} caller ${req.socket.remoteAddress ?? '?'} ${req.method ?? '?'} ${JSON.stringify(path)}`;
}
