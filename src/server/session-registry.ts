// Every session this server knows, in creation order (the order `tend ls`
// shows and indexes), created here or recovered from the store at start.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { DisposableBase, toDisposable, type Disposable } from '../common/lifecycle.js';
import { Emitter } from '../common/event.js';
import { Session, type SessionDeps } from './session.js';
import { resolveTarget } from './targets.js';
import { StoreError } from './store/index.js';

export interface NewSessionSpec {
  name: string | null;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** false: start argv exactly as given; otherwise a plain bash/zsh/fish gets tend's integration. */
  shellIntegration?: boolean;
}

/** Another live session carries the name asked for. */
export class NameTakenError extends Error {
  override readonly name = 'NameTakenError';
}

/**
 * A new session's program could not be started. `cause` says why; `where`
 * is the directory a start writes in (the runtime directory), for a cause
 * that is the disk's and names no file.
 */
export class SpawnError extends Error {
  override readonly name = 'SpawnError';

  constructor(cause: unknown, readonly where: string) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

// Recovering holders is mostly waiting on sockets: overlap it, but not so
// much that 1 000 replays land on the loop at once.
const RECOVERY_CONCURRENCY = 16;

export class SessionRegistry extends DisposableBase {
  private readonly sessions = new Map<string, Session>();
  private readonly removedListeners = new Emitter<Session>();
  private readonly addedListeners = new Emitter<Session>();

  constructor(private readonly deps: SessionDeps) {
    super();
    this.register(toDisposable(() => {
      for (const s of this.sessions.values()) s.dispose();
      this.sessions.clear();
    }));
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  resolve(target: string): Session {
    return resolveTarget(target, this.list());
  }

  private newId(): string {
    for (;;) {
      // Ids start with a letter so that a number always means an index.
      const id = 'abcdef'[randomBytes(1)[0]! % 6]! + randomBytes(4).toString('hex').slice(0, 7);
      if (!this.sessions.has(id) && !this.deps.store.getSession(id)) return id;
    }
  }

  checkName(name: string | null, except?: Session): void {
    if (name === null) return;
    const other = this.list().find((s) => s.name === name && s !== except);
    if (other) throw new NameTakenError(`a session is already named "${name}" (${other.id}); choose another name`);
  }

  async create(spec: NewSessionSpec): Promise<Session> {
    this.checkName(spec.name);
    if (this.deps.store.readOnly) {
      throw new StoreError('READ_ONLY',
        `cannot start a new session: the store is read-only (${this.deps.store.readOnlyReason ?? 'TEND_HOME is not writable'}), so the session would be lost at the next restart`);
    }
    const id = this.newId();
    const record = this.deps.store.createSession({
      id,
      name: spec.name,
      argv: spec.argv,
      cwd: spec.cwd,
      env: spec.env,
      cols: spec.cols,
      rows: spec.rows,
      holderSocket: `${this.deps.holdersDir}/${id}.sock`,
      holderPid: null,
      childPid: null,
      generation: null,
      createdAt: Date.now(),
    });
    let session: Session;
    try {
      session = await Session.start(this.deps, record, { shellIntegration: spec.shellIntegration !== false });
    } catch (err) {
      try {
        this.deps.store.markDisposed(id);
      } catch (markErr) {
        this.deps.log.error(`session ${id}: could not record that it failed to start`, markErr);
      }
      // What a start writes is in the runtime directory: a full or read-only disk there is said as such.
      throw new SpawnError(err, dirname(this.deps.holdersDir));
    }
    this.add(session);
    return session;
  }

  private add(session: Session): void {
    this.sessions.set(session.id, session);
    this.addedListeners.fire(session);
  }

  /** Called for each session created or recovered, once it is in the list. */
  onSessionAdded(listener: (session: Session) => void): Disposable {
    return this.addedListeners.on(listener);
  }

  /** Called when a session is removed (killed): its workspace split collapses. */
  onSessionRemoved(listener: (session: Session) => void): Disposable {
    return this.removedListeners.on(listener);
  }

  async kill(session: Session): Promise<void> {
    this.sessions.delete(session.id);
    this.removedListeners.fire(session);
    await session.kill();
  }

  /**
   * Recovers every stored session; returns how many came back running, cold,
   * exited. `onProgress` hears (0, total) first, then (done, total) as each
   * session is recovered (or fails to be).
   */
  async recoverAll(onProgress?: (done: number, total: number) => void): Promise<Record<string, number>> {
    const records = this.deps.store.listSessions();
    const counts: Record<string, number> = {};
    const recovered: Array<Session | null> = new Array(records.length).fill(null);
    let next = 0;
    let done = 0;
    if (records.length > 0) onProgress?.(0, records.length);
    const worker = async () => {
      while (next < records.length) {
        const i = next++;
        const record = records[i]!;
        if (record.damaged !== undefined) {
          const env = record.damaged.includes('environment') ? ' (a revived shell gets an empty environment)' : '';
          this.deps.log.warn(`session ${record.id}: its ${record.damaged.join(' and ')} in the store no longer read back (the file is damaged); ` +
            `the session is recovered without ${record.damaged.length > 1 ? 'them' : 'it'}${env}`);
        }
        try {
          recovered[i] = await Session.recover(this.deps, record);
        } catch (err) {
          this.deps.log.error(`session ${record.id}: recovery failed`, err);
        }
        onProgress?.(++done, records.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECOVERY_CONCURRENCY, records.length) }, worker));
    for (const s of recovered) {
      if (!s) continue;
      this.add(s); // in creation order, whatever order recovery finished in
      counts[s.status] = (counts[s.status] ?? 0) + 1;
    }
    return counts;
  }

  /** Checkpoints and detaches every session; holders keep running. */
  async shutdown(): Promise<void> {
    await Promise.all(this.list().map((s) => s.shutdown().catch((err) => this.deps.log.error(`session ${s.id}: shutdown`, err))));
    this.sessions.clear();
  }
}
