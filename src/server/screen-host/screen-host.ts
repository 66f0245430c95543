// The server's side of the screen host: one worker thread that holds every
// session's screen (screen-table.ts), so that parsing output never runs on
// the loop that moves keys and bytes between viewers and holders. Measured
// beside 20 floods on 2 cores (docs/performance.md): with the parse on the
// loop, a key waited behind a preempted parse turn for up to 16 ms.
//
//   const host = new ScreenHost({ historyBudgetBytes, onFatal });
//   const screen = host.open({ cols: 80, rows: 24 });   // a HostedScreen
//   screen.write(bytes, { live: true }, () => { ... parsed ... });
//   await screen.text({ scrollbackRows: 0, ansi: false });
//
// Operations are gathered for one turn of this loop and posted as one
// message (setImmediate); the bytes of writes go through the byte lane, a
// ring of shared memory (byte-lane.ts), or in one transferred buffer with
// the message when the lane is full.
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import { HostedScreen } from './hosted-screen.js';
import { LaneWriter, createByteLane } from './byte-lane.js';
import { sharedBlock } from '../screen/history/shared-block.js';
import type { SearchStopReason } from '../screen/index.js';
import type { HostBatch, HostEvent, HostOp, HostStats, HostWorkerData, HostedScreenOptions, RestoreSpec } from './messages.js';

export interface ScreenHostOptions {
  historyBudgetBytes: number;
  /** The byte lane's size (byte-lane.ts); tests make it small to fill it. */
  laneBytes?: number;
  /** The thread died (an exception in it): no screen can be read or fed any more. */
  onFatal(error: Error): void;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onCut?: () => void;
}

export class ScreenHostError extends Error {
  /** Set when a search gave up: why (the API answers with it). */
  constructor(message: string, readonly searchStopped?: SearchStopReason) {
    super(message);
  }
}

export class ScreenHost extends DisposableBase {
  private readonly worker: Worker;
  private readonly lane: LaneWriter;
  private ops: HostOp[] = [];
  private chunks: Uint8Array[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private nextScreen = 1;
  private nextCall = 1;
  private readonly calls = new Map<number, PendingCall>();
  private readonly screens = new Map<number, HostedScreen>();
  private dead: Error | null = null;
  private lastStats: HostStats;

  constructor(private readonly options: ScreenHostOptions) {
    super();
    this.lastStats = { historyBytes: 0, historyBudgetBytes: options.historyBudgetBytes };
    const lane = createByteLane(options.laneBytes);
    this.lane = new LaneWriter(lane);
    const workerData: HostWorkerData = { historyBudgetBytes: options.historyBudgetBytes, lane };
    // The loop's isolate runs without V8's memory reducer (node-flags.ts);
    // this one holds every screen and is worth shrinking when idle. V8 reads
    // the flag as an isolate is made, so only this thread's gets it.
    setFlagsFromString('--memory-reducer');
    this.worker = new Worker(new URL('./host-worker.js', import.meta.url), { workerData, name: 'tend screen host' });
    this.worker.on('message', (events: HostEvent[]) => this.receive(events));
    this.worker.on('error', (err) => this.die(err));
    this.worker.on('exit', (code) => this.die(new ScreenHostError(`the screen host stopped (exit code ${code})`)));
    this.register(toDisposable(() => {
      this.dead ??= new ScreenHostError('the server is shutting down');
      this.failCalls(this.dead);
      void this.worker.terminate();
    }));
  }

  /** A new, empty screen. */
  open(options: HostedScreenOptions): HostedScreen {
    const id = this.nextScreen++;
    this.send({ op: 'open', screen: id, options });
    return this.track(new HostedScreen(this, id, options.cols, options.rows, null));
  }

  /** A screen rebuilt from a checkpoint; resolves once it is whole (before any later byte is written). */
  async restore(spec: RestoreSpec): Promise<{ screen: HostedScreen; historyEpoch: number }> {
    const id = this.nextScreen++;
    const call = this.nextCall++;
    const done = this.expect<{ epoch: number; title: string }>(call);
    // Blocks read from a file are views into it, which posting would copy whole, once per block: share each one's bytes instead.
    const history = spec.history === null ? null : { ...spec.history, blocks: spec.history.blocks.map(sharedBlock) };
    this.send({ op: 'restore', screen: id, call, spec: { ...spec, history } });
    const { epoch, title } = await done;
    const screen = this.track(new HostedScreen(this, id, spec.snapshot.cols, spec.snapshot.rows, spec.snapshot.cwd));
    screen.titleChanged(title);
    return { screen, historyEpoch: epoch };
  }

  /** The server-wide history budget's use, as the host last said (within STATS_INTERVAL_MS of a change). */
  get stats(): HostStats {
    return this.lastStats;
  }

  /** For HostedScreen: queue an operation for this turn's message. */
  send(op: HostOp): void {
    if (this.dead !== null) return;
    this.ops.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.post());
    }
  }

  /** For HostedScreen: queue a write; its bytes are copied into the byte lane now (or, if it is full, this turn's buffer). */
  sendWrite(screen: number, bytes: Uint8Array, live: boolean): void {
    if (this.dead !== null) return;
    const at = this.lane.put(bytes);
    if (at >= 0) {
      this.send({ op: 'write', screen, start: at, end: at + bytes.byteLength, live, lane: true });
      return;
    }
    const start = this.queuedBytes;
    this.chunks.push(bytes.slice()); // the caller may reuse its bytes once this returns
    this.queuedBytes += bytes.length;
    this.send({ op: 'write', screen, start, end: this.queuedBytes, live, lane: false });
  }

  /** For HostedScreen: a call's answer; `onCut` runs when the picture it reads is fixed (see messages.ts). */
  call<T>(op: Omit<Extract<HostOp, { op: 'call' }>, 'call'>, onCut?: () => void): Promise<T> {
    const call = this.nextCall++;
    const done = this.expect<T>(call, onCut);
    this.send({ ...op, call } as HostOp);
    return done;
  }

  /** For HostedScreen: it is disposed. */
  forget(screen: number): void {
    if (!this.screens.delete(screen)) return;
    this.send({ op: 'close', screen });
  }

  private track(screen: HostedScreen): HostedScreen {
    this.screens.set(screen.id, screen);
    return screen;
  }

  private expect<T>(call: number, onCut?: () => void): Promise<T> {
    if (this.dead !== null) return Promise.reject(this.dead);
    return new Promise<T>((resolve, reject) => this.calls.set(call, { resolve: resolve as (v: unknown) => void, reject, onCut }));
  }

  private post(): void {
    this.scheduled = false;
    if (this.dead !== null) return;
    let bytes: ArrayBuffer | null = null;
    if (this.queuedBytes > 0) {
      // One copy: the holder's frames are views into larger buffers, which posting would copy whole.
      const all = new Uint8Array(this.queuedBytes);
      let at = 0;
      for (const c of this.chunks) {
        all.set(c, at);
        at += c.length;
      }
      bytes = all.buffer;
    }
    const batch: HostBatch = { ops: this.ops, bytes };
    this.ops = [];
    this.chunks = [];
    this.queuedBytes = 0;
    this.worker.postMessage(batch, bytes === null ? [] : [bytes]);
  }

  private receive(events: HostEvent[]): void {
    for (const e of events) {
      switch (e.ev) {
        case 'parsed':
          this.screens.get(e.screen)?.parsedUpTo(e.count, e.topRow);
          break;
        case 'reply':
          this.screens.get(e.screen)?.reply(e.bytes);
          break;
        case 'title':
          this.screens.get(e.screen)?.titleChanged(e.title);
          break;
        case 'cwd':
          this.screens.get(e.screen)?.cwdChanged(e.cwd);
          break;
        case 'finished':
          this.screens.get(e.screen)?.commandFinished(e.command);
          break;
        case 'cut':
          this.calls.get(e.call)?.onCut?.();
          break;
        case 'result': {
          const pending = this.calls.get(e.call);
          this.calls.delete(e.call);
          pending?.resolve(e.value);
          break;
        }
        case 'stats':
          this.lastStats = e.stats;
          break;
        case 'failed': {
          const pending = this.calls.get(e.call);
          this.calls.delete(e.call);
          pending?.reject(new ScreenHostError(e.message, e.code));
          break;
        }
      }
    }
  }

  private die(error: Error): void {
    if (this.dead !== null) return;
    this.dead = error;
    this.failCalls(error);
    this.options.onFatal(error);
  }

  private failCalls(error: Error): void {
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const c of calls) c.reject(error);
  }
}
