// What the INPUT_FROM tests share: a record of the holder's INPUT_TAKEN
// answers per writer, and programs that show exactly which bytes reached
// the PTY (raw mode, no echo, so the terminal passes every byte unchanged).

import { randomBytes } from 'node:crypto';
import type { HolderConnection } from '../../src/holder-client/index.js';
import { WRITER_ID_BYTES } from '../../src/protocol/holder-frames.js';
import { waitFor } from '../support/wait-for.js';

/** The mark a program prints once its terminal is raw; what follows is input, byte for byte. */
export const RAW_READY = 'RAW-READY';

/** Copies every byte it reads back out: the output after RAW_READY is the input the PTY took. */
export const rawEcho = ['sh', '-c', `stty raw -echo; printf ${RAW_READY}; exec cat`];

/**
 * Reads nothing until a file named `go` appears in its directory, then
 * reads `bytes` bytes and prints their sha256: until then the PTY, and then
 * the holder, fill up.
 */
export function gatedDigest(bytes: number): string[] {
  return ['sh', '-c', `stty raw -echo; printf ${RAW_READY}; while [ ! -e go ]; do sleep 0.02; done; head -c ${bytes} | sha256sum`];
}

export function newWriter(): Uint8Array {
  return new Uint8Array(randomBytes(WRITER_ID_BYTES));
}

export function writerName(writer: Uint8Array): string {
  return Buffer.from(writer).toString('hex');
}

/** Every INPUT_TAKEN answer a connection receives, the latest per writer. */
export class TakenLog {
  readonly latest = new Map<string, number>();
  answers = 0;

  constructor(conn: HolderConnection) {
    conn.onInputTaken((writer, total) => {
      this.latest.set(writerName(writer), total);
      this.answers++;
    });
  }

  totalOf(writer: Uint8Array): number | undefined {
    return this.latest.get(writerName(writer));
  }

  /** Waits for the holder to answer `total` for the writer. */
  waitForTotal(writer: Uint8Array, total: number, timeoutMs?: number): Promise<true> {
    return waitFor(() => this.totalOf(writer) === total, {
      timeoutMs,
      what: `INPUT_TAKEN ${total} for writer ${writerName(writer).slice(0, 8)}`,
      describe: () => `latest answer ${this.totalOf(writer) ?? 'none'}, ${this.answers} answers in all`,
    });
  }

  /**
   * Sends a question (INPUT_FROM without bytes) and waits for its answer.
   * The answer is told apart from earlier ones by a fresh count of answers.
   */
  async ask(conn: HolderConnection, writer: Uint8Array, at: number): Promise<number> {
    const before = this.answers;
    conn.inputFrom(writer, at, new Uint8Array(0));
    await waitFor(() => this.answers > before, { what: 'the answer to a question' });
    return this.totalOf(writer)!;
  }
}
