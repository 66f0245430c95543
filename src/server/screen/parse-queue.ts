// One screen's input, in order: bytes to parse (each with what kind of bytes
// they are) and steps that must happen between them (a resize, the point a
// snapshot is cut, a flush resolving). The ParseScheduler decides when it
// parses; the queue decides how much: pieces of PIECE_BYTES, checking the
// clock between pieces, so a slice ends close to its deadline.
import { performance } from 'node:perf_hooks';
import type { ParseJob, ParseScheduler } from './parse-scheduler.js';

/**
 * live: the program's output as it happens (queries in it are answered);
 * replay: the program's earlier output again (recovery, ring replay: never answered);
 * restore: a snapshot being rebuilt (not program output at all: no answers, no history).
 */
export type ParseMode = 'live' | 'replay' | 'restore';

/** About 0.5 ms of parsing at xterm's ~30 MB/s: the granularity of a slice. */
export const PIECE_BYTES = 16 * 1024;

type Item =
  | { kind: 'bytes'; data: Uint8Array | string; at: number; mode: ParseMode; done: (() => void) | undefined }
  | { kind: 'step'; run: () => void; cancel: (() => void) | undefined };

export class ParseQueue implements ParseJob {
  /** Items before head are done; their slots are emptied so their bytes can be collected. */
  private readonly items: Array<Item | undefined> = [];
  private head = 0;
  private backlog = 0;
  private held = false;
  private closed = false;

  constructor(
    private readonly scheduler: ParseScheduler,
    /** Parses one piece now. */
    private readonly consume: (data: Uint8Array | string, mode: ParseMode) => void,
  ) {}

  get backlogBytes(): number {
    return this.backlog;
  }

  /** Nothing queued and nothing held: a step could run right now instead of being queued. */
  get idle(): boolean {
    return this.head === this.items.length && !this.held;
  }

  pushBytes(data: Uint8Array | string, mode: ParseMode, done?: () => void): void {
    if (this.closed) return;
    this.items.push({ kind: 'bytes', data, at: 0, mode, done });
    this.backlog += data.length;
    this.wake();
  }

  /**
   * Runs `run` once everything queued before it is parsed (and any hold
   * before it released); `cancel` instead if the queue is closed first.
   */
  pushStep(run: () => void, cancel?: () => void): void {
    if (this.closed) {
      cancel?.();
      return;
    }
    this.items.push({ kind: 'step', run, cancel });
    this.wake();
  }

  /** Stops parsing (a snapshot is reading the terminal) until release(). */
  hold(): void {
    this.held = true;
    this.scheduler.cancel(this);
  }

  release(): void {
    this.held = false;
    this.wake();
  }

  /** Drops everything queued: bytes' callbacks never run, steps are cancelled. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const dropped = this.items.slice(this.head);
    this.items.length = 0;
    this.head = 0;
    this.backlog = 0;
    this.scheduler.cancel(this);
    for (const item of dropped) if (item?.kind === 'step') item.cancel?.();
  }

  parse(deadline: number): boolean {
    while (!this.held && !this.closed && this.head < this.items.length) {
      const item = this.items[this.head]!;
      if (item.kind === 'step') {
        this.shift();
        item.run();
        continue;
      }
      const { data } = item;
      if (item.at < data.length) {
        const end = Math.min(item.at + PIECE_BYTES, data.length);
        const piece = item.at === 0 && end === data.length ? data : typeof data === 'string' ? data.slice(item.at, end) : data.subarray(item.at, end);
        this.backlog -= end - item.at;
        item.at = end;
        this.consume(piece, item.mode);
      }
      if (item.at >= data.length) {
        this.shift();
        item.done?.();
      }
      if (performance.now() >= deadline) break;
    }
    return !this.held && !this.closed && this.head < this.items.length;
  }

  private shift(): void {
    // A screen that never catches up never empties its queue: a done item
    // left in its slot would keep its bytes alive until the next compaction
    // (measured: 20 flooding screens held 278 MB of parsed 64 KiB reads).
    this.items[this.head] = undefined;
    this.head++;
    // Compact now and then rather than shift() per item: O(1) per item.
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head >= 1024) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }

  private wake(): void {
    if (!this.held && !this.closed) this.scheduler.wake(this);
  }
}
