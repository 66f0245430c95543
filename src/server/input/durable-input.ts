// Input a session's holder has taken, not merely input the server queued.
// The holder outlives the server, so bytes it has taken survive a server
// crash; bytes in the server's socket buffer do not. Every writer (a `tend
// send` request key, a viewer, an await) numbers its own bytes from 0; the
// holder counts, per writer, how many it has taken and drops what it already
// has, so a writer that sends again from an earlier position after a crash
// gets each byte to the program exactly once.
//
// This file keeps the promises: a write resolves when the holder's count for
// its writer covers its last byte, and rejects with how much was taken when
// the holder goes away first.
import { DisposableStore, type Disposable } from '../../common/lifecycle.js';

export const WRITER_ID_BYTES = 16;

/** What this needs of a holder connection. */
export interface InputHolder {
  /** Holder protocol 2 and later count what they take; older ones only queue. */
  readonly speaksInputAcks: boolean;
  input(bytes: Uint8Array): boolean;
  inputFrom(writer: Uint8Array, at: number, bytes: Uint8Array): boolean;
  onInputTaken(listener: (writer: Uint8Array, total: number) => void): Disposable;
  onClose(listener: () => void): Disposable;
}

/** The holder went (or the session ended) before it took all of a write. */
export class InputNotTakenError extends Error {
  constructor(message: string, readonly taken: number) {
    super(message);
  }
}

/** A write whose `at` is past everything the holder has of its writer: taking it would leave a hole. */
export class InputHoleError extends Error {
  constructor(readonly at: number, readonly taken: number) {
    super(`input at byte ${at} would leave a hole: the session has ${taken} bytes of this writer; send from byte ${taken}`);
  }
}

interface Waiter {
  /** Settles once the holder's count reaches this (a question: any answer). */
  end: number;
  resolve(total: number): void;
  reject(err: Error): void;
}

interface WriterState {
  /** The holder's latest answer. */
  taken: number;
  /** The end of what this server sent; a write may start anywhere up to here. */
  sentEnd: number;
  waiters: Waiter[];
  /** The first write past what this server sent waits for the holder's count (see learn()). */
  known: Promise<void> | null;
}

/**
 * Writers remembered between their writes (a viewer's next key needs no question to the
 * holder); as many as the holder remembers, since one it forgot starts afresh there anyway.
 */
const REMEMBERED_WRITERS = 64;
const QUESTION = -1;

export function writerKey(writer: Uint8Array): string {
  return Buffer.from(writer.buffer, writer.byteOffset, writer.byteLength).toString('hex');
}

export class DurableInput implements Disposable {
  private readonly writers = new Map<string, WriterState>();
  private readonly subscriptions = new DisposableStore();
  private closedWith: string | null = null;

  constructor(private readonly holder: InputHolder) {
    if (holder.speaksInputAcks) this.subscriptions.add(holder.onInputTaken((writer: Uint8Array, total: number) => this.answered(writerKey(writer), total)));
    this.subscriptions.add(holder.onClose(() => this.close('the session\'s holder went away')));
  }

  /** Whether writes are acknowledged by the holder (a holder from before durable input only queues them). */
  get durable(): boolean {
    return this.holder.speaksInputAcks;
  }

  /**
   * Sends a writer's bytes at..at+n-1. Resolves with the holder's count for the writer
   * once it covers at+n. A write that starts before the holder's count sends only what the
   * holder lacks (nothing, if it has it all).
   */
  async write(writer: Uint8Array, at: number, data: Uint8Array): Promise<number> {
    if (!this.holder.speaksInputAcks) {
      // An older holder: queued is all that can be said.
      this.holder.input(data);
      return at + data.length;
    }
    const state = this.stateOf(writerKey(writer));
    if (this.closedWith !== null) throw new InputNotTakenError(this.closedWith, state.taken);
    if (at > state.sentEnd) {
      await this.learn(writer, state);
      if (this.closedWith !== null) throw new InputNotTakenError(this.closedWith, state.taken);
      // A holder that has none of the writer may have forgotten it: it starts the writer at `at`.
      if (at > Math.max(state.sentEnd, state.taken) && state.taken > 0) throw new InputHoleError(at, state.taken);
    }
    const end = at + data.length;
    if (end <= state.taken) return state.taken;
    // What the holder has of these bytes is skipped here rather than sent to be dropped.
    const from = Math.max(at, state.taken);
    const done = new Promise<number>((resolve, reject) => state.waiters.push({ end, resolve, reject }));
    this.holder.inputFrom(writer, from, data.subarray(from - at));
    state.sentEnd = Math.max(state.sentEnd, end);
    return done;
  }

  /** How many of the writer's bytes the holder has, asked of the holder itself. */
  async takenBy(writer: Uint8Array): Promise<number> {
    if (!this.holder.speaksInputAcks) return 0;
    const state = this.stateOf(writerKey(writer));
    if (this.closedWith !== null) throw new InputNotTakenError(this.closedWith, state.taken);
    const answer = new Promise<number>((resolve, reject) => state.waiters.push({ end: QUESTION, resolve, reject }));
    this.holder.inputFrom(writer, 0, new Uint8Array(0));
    return answer;
  }

  dispose(): void {
    this.close('the session ended');
    this.subscriptions.dispose();
  }

  /**
   * Before a writer's first write past what this server sent (a viewer resending after a
   * restart, say): the holder's count, so a resend of bytes it has is not taken for a hole.
   */
  private learn(writer: Uint8Array, state: WriterState): Promise<void> {
    state.known ??= this.takenBy(writer).then(
      () => undefined,
      () => undefined, // the write itself reports the closed holder
    );
    return state.known;
  }

  private stateOf(key: string): WriterState {
    let state = this.writers.get(key);
    if (state !== undefined) {
      // Most recently used last, so the oldest idle writers are the ones forgotten.
      this.writers.delete(key);
      this.writers.set(key, state);
      return state;
    }
    state = { taken: 0, sentEnd: 0, waiters: [], known: null };
    this.writers.set(key, state);
    this.forgetIdle();
    return state;
  }

  private forgetIdle(): void {
    for (const [key, state] of this.writers) {
      if (this.writers.size <= REMEMBERED_WRITERS) return;
      if (state.waiters.length === 0) this.writers.delete(key);
    }
  }

  private answered(key: string, total: number): void {
    const state = this.writers.get(key);
    if (state === undefined) return;
    state.taken = Math.max(state.taken, total);
    state.waiters = state.waiters.filter((w) => {
      if (w.end !== QUESTION && w.end > state.taken) return true;
      w.resolve(state.taken);
      return false;
    });
  }

  private close(why: string): void {
    if (this.closedWith !== null) return;
    this.closedWith = why;
    for (const state of this.writers.values()) {
      for (const w of state.waiters.splice(0)) w.reject(new InputNotTakenError(why, state.taken));
    }
  }
}
