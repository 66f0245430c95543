// Hook events that reached no server. The hook client (holder/hook-client.c)
// writes an event it could not deliver (no server listening, the connection
// closed before a reply) to the spool beside the server's socket, one file
// per event named so that names sort in the order the events happened:
//
//   <20-digit ns stamp>-<pid>-<session>-<kind>-<event>.json            the payload's bytes
//   <20-digit ns stamp>-<pid>-<session>-<kind>-<event>.truncated.json  empty: a payload past the cap
//
// The server replays them through AgentRegistry.report, in name order, once
// at start (before it listens, so they come before any live event) and then
// whenever one appears: before each live hook event (so an agent's event
// spooled while this server was starting is applied before its next one)
// and when the directory changes (a last event with none after it).
import { readdirSync, readFileSync, statSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import { ensurePrivateDir } from '../../common/paths.js';
import { AGENT_EVENT_NAME_PATTERN, MAX_AGENT_EVENT_BYTES, isAgentKind, type AgentKind } from '../../protocol/api/index.js';
import type { Logger } from '../log.js';
import type { Session } from '../session.js';
import type { Payload } from './hook-events.js';

/** A temporary file (a dot-name) this old was left by a hook client that died mid-write. */
const ABANDONED_TEMP_FILE_MS = 60_000;
const SPOOL_FILE_NAME = /^(\d{20})-(\d+)-([A-Za-z0-9]{1,64})-([a-z]+)-([A-Za-z][A-Za-z0-9_]{0,63})(\.truncated)?\.json$/;

export interface SpooledEvent {
  sessionId: string;
  kind: AgentKind;
  event: string;
  /** As the events route reads a body: null for none, {} for a truncated one. */
  payload: Payload | null;
}

export interface HookSpoolDeps {
  dir: string;
  log: Logger;
  sessionById(id: string): Session | undefined;
  report(session: Session, kind: AgentKind, event: string, payload: Payload | null): void;
}

export class HookSpool extends DisposableBase {
  /** Files applied or given up on whose removal failed: never applied or logged twice. */
  private readonly done = new Set<string>();
  private draining = false;
  private drainQueued = false;

  constructor(private readonly deps: HookSpoolDeps) {
    super();
  }

  /**
   * Makes the spool directory (as the hook client would) and replays
   * whatever appears in it from now on. A spool that cannot be watched
   * still replays at each live hook event.
   */
  watch(): void {
    let watcher: FSWatcher;
    try {
      ensurePrivateDir(this.deps.dir);
      watcher = watch(this.deps.dir, { persistent: false }, () => this.queueDrain());
    } catch (err) {
      this.deps.log.warn(`hook spool ${this.deps.dir}: cannot watch it (${(err as Error).message}); events spooled while this server runs are replayed at the next hook event`);
      return;
    }
    watcher.on('error', (err) => {
      this.deps.log.warn(`hook spool ${this.deps.dir}: its watch failed (${err.message}); events spooled from now on are replayed at the next hook event`);
      watcher.close();
    });
    this.register(toDisposable(() => watcher.close()));
  }

  /**
   * Applies every spooled event, oldest first, removing each file once
   * applied. Synchronous: the events route runs it before applying a live
   * event, so nothing comes between. Returns how many were applied.
   */
  drain(): number {
    if (this.draining || this.isDisposed) return 0;
    this.draining = true;
    try {
      return this.drainNow();
    } finally {
      this.draining = false;
    }
  }

  private queueDrain(): void {
    if (this.drainQueued) return;
    this.drainQueued = true;
    setImmediate(() => {
      this.drainQueued = false;
      this.drain();
    });
  }

  private drainNow(): number {
    let names: string[];
    try {
      names = readdirSync(this.deps.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.giveUpOnce(this.deps.dir, `cannot read it: ${(err as Error).message}`);
      return 0;
    }
    if (names.length === 0) return 0;
    let applied = 0;
    let sessionGone = 0;
    for (const name of names.sort()) {
      if (this.done.has(name)) continue;
      const path = join(this.deps.dir, name);
      if (name.startsWith('.')) {
        this.removeAbandonedTemp(name, path);
        continue;
      }
      const read = readSpooledEvent(name, path);
      if (typeof read === 'string') {
        this.deps.log.warn(`hook spool: ${name} removed unread: ${read}`);
        this.remove(name, path);
        continue;
      }
      const session = this.deps.sessionById(read.sessionId);
      if (session === undefined) {
        sessionGone++;
      } else {
        try {
          this.deps.report(session, read.kind, read.event, read.payload);
          applied++;
        } catch (err) {
          this.deps.log.warn(`hook spool: ${name} could not be applied (${(err as Error).message}); removed`);
        }
      }
      this.remove(name, path);
    }
    if (applied + sessionGone > 0) {
      const gone = sessionGone > 0 ? `; ${sessionGone} of sessions that are gone dropped` : '';
      this.deps.log.info(`hook spool: replayed ${applied} agent hook events sent while no server answered${gone}`);
    }
    return applied;
  }

  private removeAbandonedTemp(name: string, path: string): void {
    try {
      if (Date.now() - statSync(path).mtimeMs < ABANDONED_TEMP_FILE_MS) return;
    } catch {
      return; // renamed or removed meanwhile
    }
    this.remove(name, path);
  }

  private remove(name: string, path: string): void {
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.done.add(name);
      this.deps.log.warn(`hook spool: cannot remove ${path} (${(err as Error).message}); it is left and not replayed again`);
    }
  }

  private giveUpOnce(key: string, why: string): void {
    if (this.done.has(key)) return;
    this.done.add(key);
    this.deps.log.warn(`hook spool ${key}: ${why}`);
  }
}

/** One spool file read, or why it cannot be. */
export function readSpooledEvent(name: string, path: string): SpooledEvent | string {
  const m = SPOOL_FILE_NAME.exec(name);
  if (m === null) return 'its name is not <stamp>-<pid>-<session>-<agent>-<event>.json';
  const [, , , sessionId, kind, event, truncated] = m;
  if (!isAgentKind(kind)) return `"${kind}" is not an agent tend knows`;
  if (!AGENT_EVENT_NAME_PATTERN.test(event!)) return `"${event}" is not a hook event name`;
  let body: Buffer;
  try {
    if (statSync(path).size > MAX_AGENT_EVENT_BYTES) return `it is larger than an event may be (${MAX_AGENT_EVENT_BYTES} bytes)`;
    body = readFileSync(path);
  } catch (err) {
    return `cannot read it: ${(err as Error).message}`;
  }
  const base = { sessionId: sessionId!, kind, event: event! };
  // As the events route: a truncated payload still says the event happened, with no fields read.
  if (truncated !== undefined) return { ...base, payload: {} };
  if (body.length === 0) return { ...base, payload: null };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return 'its payload is not valid JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'its payload is not a JSON object';
  return { ...base, payload: value as Payload };
}
