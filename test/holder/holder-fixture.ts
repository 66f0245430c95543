// What the end-to-end holder tests share: starting a real holder under a test
// scope (its PIDs killed at the end), a controller that records the whole
// stream it receives, and a raw socket for sending frames a well-behaved
// client never would.

import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { HolderConnection, spawnHolder, type SpawnHolderOptions, type ExitEvent } from '../../src/holder-client/index.js';
import { FrameReader, type RawFrame } from '../../src/holder-client/frame-reader.js';
import { decodeHolderFrame, encodeHello, type HolderMessage } from '../../src/protocol/holder-frames.js';
import type { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';

/** A per-test timeout generous enough for a loaded 2-core machine. */
export const HOLDER_TEST_TIMEOUT_MS = 90_000;

export interface StartedHolder {
  socketPath: string;
  holderPid: number;
  childPid: number;
  dir: string;
}

export type StartHolderOptions = Partial<Omit<SpawnHolderOptions, 'socketPath' | 'argv'>> & { argv: string[] };

/** An environment for shells that is the same on every machine: no rc files, a fixed prompt. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    PS1: '$ ',
    ...extra,
  };
}

export async function startHolder(scope: TestScope, options: StartHolderOptions): Promise<StartedHolder> {
  const dir = scope.tempDir('tend-h-');
  const socketPath = join(dir, 'h.sock');
  const started = await spawnHolder({
    cols: 80,
    rows: 24,
    cwd: dir,
    env: testEnv(),
    ...options,
    socketPath,
  });
  scope.trackPid(started.holderPid);
  scope.trackPid(started.childPid);
  return { socketPath, dir, ...started };
}

/** argv running a Node script as the holder's child. */
export function nodeProgram(script: string): string[] {
  return [process.execPath, '-e', script];
}

export const INTERACTIVE_BASH = ['bash', '--norc', '--noprofile', '-i'];

/**
 * A controller that holds the lease and records every streamed byte, in
 * order, from the offset it dumped since.
 */
export class RecordingController {
  readonly chunks: Buffer[] = [];
  /** Every stream frame, without its bytes. */
  readonly frames: Array<{ kind: 'replay' | 'output'; offset: number; length: number; gap: boolean; end: boolean }> = [];
  received = 0;
  startOffset = 0;
  gap = false;
  replayEnded = false;
  exit: ExitEvent | null = null;
  closed = false;
  closeError: Error | null = null;
  private joined: Buffer | null = null;

  private constructor(readonly conn: HolderConnection) {
    conn.onReplay((e) => {
      this.frames.push({ kind: 'replay', offset: e.offset, length: e.bytes.byteLength, gap: e.gap, end: e.end });
      if (this.chunks.length === 0 && this.received === 0) {
        this.startOffset = e.offset;
        this.gap = e.gap;
      }
      this.add(e.bytes);
      if (e.end) this.replayEnded = true;
    });
    conn.onOutput((e) => {
      this.frames.push({ kind: 'output', offset: e.offset, length: e.bytes.byteLength, gap: false, end: false });
      this.add(e.bytes);
    });
    conn.onExit((e) => (this.exit = e));
    conn.onClose((e) => {
      this.closed = true;
      this.closeError = e.error;
    });
  }

  /**
   * Connects, acquires the lease and starts the stream at `from`. The lease is
   * asked for until granted: a previous controller's close may not have
   * reached the holder yet.
   */
  static async start(scope: TestScope, socketPath: string, from = 0): Promise<RecordingController> {
    const conn = scope.own(await HolderConnection.connect(socketPath, { timeoutMs: 10_000 }));
    let denied = '';
    await waitFor(
      async () => {
        const lease = await conn.acquire();
        if (lease === 'acquired') return true;
        denied = lease.denied;
        return false;
      },
      { what: 'the controller lease', describe: () => `last denial: ${denied}`, intervalMs: 50 },
    );
    const rec = new RecordingController(conn);
    void conn.dumpSince(from);
    return rec;
  }

  private add(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.chunks.push(Buffer.from(bytes));
    this.received += bytes.byteLength;
    this.joined = null;
  }

  /** Everything received so far, as one buffer. */
  bytes(): Buffer {
    if (!this.joined) this.joined = Buffer.concat(this.chunks);
    return this.joined;
  }

  text(): string {
    return this.bytes().toString('utf8');
  }

  /** Offset just past the last byte received. */
  get endOffset(): number {
    return this.startOffset + this.received;
  }

  waitForText(needle: string | RegExp, timeoutMs?: number): Promise<string> {
    return waitFor(
      () => {
        const text = this.text();
        return (typeof needle === 'string' ? text.includes(needle) : needle.test(text)) ? text : null;
      },
      { timeoutMs, what: `output matching ${String(needle)}`, describe: () => `received so far: ${JSON.stringify(this.text().slice(-400))}` },
    );
  }

  waitForBytes(count: number, timeoutMs?: number): Promise<Buffer> {
    return waitFor(() => (this.received >= count ? this.bytes() : null), {
      timeoutMs,
      what: `${count} bytes`,
      describe: () => `received ${this.received}${this.closed ? `; the connection closed: ${this.closeError?.message ?? 'by the holder'}` : ''}`,
    });
  }

  waitForExit(timeoutMs?: number): Promise<ExitEvent> {
    return waitFor(() => this.exit, { timeoutMs, what: 'EXIT', describe: () => `received ${this.received} bytes` });
  }

  /** Bytes received since a mark (the length at that moment), as text. */
  textSince(mark: number): string {
    return this.bytes().subarray(mark).toString('utf8');
  }
}

/**
 * A socket that speaks frames by hand: for bad input the holder must refuse.
 * It records every frame and whether the holder closed its side.
 */
export class RawHolderSocket {
  readonly frames: HolderMessage[] = [];
  readonly rawFrames: RawFrame[] = [];
  ended = false;
  closed = false;
  private readonly reader = new FrameReader();

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.reader.push(chunk);
      for (let f = this.reader.next(); f; f = this.reader.next()) {
        this.rawFrames.push(f);
        this.frames.push(decodeHolderFrame(f.type, f.payload));
      }
    });
    socket.on('end', () => (this.ended = true));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }

  static async connect(scope: TestScope, socketPath: string): Promise<RawHolderSocket> {
    // allowHalfOpen: a test may end its side mid-frame and still read the ERROR.
    const socket = netConnect({ path: socketPath, allowHalfOpen: true });
    scope.defer(() => void socket.destroy());
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawHolderSocket(socket);
  }

  send(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  async hello(): Promise<void> {
    this.send(encodeHello());
    await this.waitForFrame('state');
  }

  waitForFrame<K extends HolderMessage['type']>(type: K, timeoutMs?: number): Promise<Extract<HolderMessage, { type: K }>> {
    return waitFor(() => this.frames.find((f): f is Extract<HolderMessage, { type: K }> => f.type === type), {
      timeoutMs,
      what: `a ${type} frame`,
      describe: () => `frames so far: ${JSON.stringify(this.frames.map((f) => f.type))}, ended ${this.ended}`,
    });
  }

  /** The holder has finished its side (EOF after ERROR). */
  waitForEnd(timeoutMs?: number): Promise<true> {
    return waitFor(() => this.ended || this.closed, { timeoutMs, what: 'the holder to close the connection' });
  }
}

/** Proves a holder is still fine: its child lives, and a new connection gets STATE. */
export async function assertHolderServes(started: StartedHolder): Promise<void> {
  if (!isProcessAlive(started.holderPid)) throw new Error(`holder ${started.holderPid} died`);
  if (!isProcessAlive(started.childPid)) throw new Error(`child ${started.childPid} died`);
  const conn = await HolderConnection.connect(started.socketPath, { timeoutMs: 10_000 });
  try {
    const state = await conn.state();
    if (state.exited) throw new Error('holder reports its child exited');
    if (state.childPid !== started.childPid) throw new Error(`STATE child pid ${state.childPid}, expected ${started.childPid}`);
    await conn.ping();
  } finally {
    conn.dispose();
  }
}

export function socketExists(path: string): boolean {
  return existsSync(path);
}
