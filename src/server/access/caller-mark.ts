// Which class of caller a request came from, as the gated listener found it,
// for the routes that serve local callers only (remote-api.ts). A request the
// gated listener never saw came over the unix socket (mode 0600 in a private
// directory: this user's own processes), and is local; anything with a TCP
// peer that was not marked is treated as remote, so a listener that forgot
// to mark can only refuse, never let in.
import type { IncomingMessage } from 'node:http';
import type { CallerClass } from './identity.js';

const marks = new WeakMap<IncomingMessage, CallerClass>();

export function markCaller(req: IncomingMessage, caller: CallerClass): void {
  marks.set(req, caller);
}

export function callerOf(req: IncomingMessage): CallerClass {
  const marked = marks.get(req);
  if (marked !== undefined) return marked;
  return req.socket.remoteAddress === undefined ? 'local' : 'remote';
}
