// A viewer's side of counted input (INPUT_AT / INPUT_TAKEN): what it typed to
// one session, numbered from 0, kept until the session's holder is known to
// have it. A byte the server has merely received can still die with it (a
// server SIGKILL loses its socket buffers); one the holder has taken cannot.
// So a viewer sends each byte at its number, drops it once INPUT_TAKEN covers
// it, and after any reconnect sends again everything not yet covered, at the
// same numbers: the holder drops what it already has, and the program gets
// every byte once. `tend attach` and the browser both keep one of these per
// session; it knows nothing of sockets (Uint8Array only, like the codec).
import { MAX_INPUT_BYTES_PER_FRAME, WRITER_ID_BYTES, splitInput } from './viewer-frames.js';

/** One INPUT_AT's worth: the bytes and the number of the first of them. */
export interface InputPiece {
  at: number;
  data: Uint8Array;
}

/** A fresh writer id for HELLO: random, so two viewers never share a count at a holder. */
export function newWriterId(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(WRITER_ID_BYTES));
}

export class UntakenInput {
  /** Pieces not yet wholly taken, in order; together they run from `taken` (or a little before) to `next`. */
  private readonly pieces: InputPiece[] = [];
  private next = 0;
  private takenTotal = 0;
  /** Bytes before this were sent on the current connection (see unsent, rewind). */
  private sentEnd = 0;

  /**
   * Goes on from where another viewer with the same writer id stood (`tend
   * attach`'s native viewer handing over to the TypeScript one): the same
   * numbers, and what was not taken is sent again on the next connection.
   * The pieces must run, in order and without a gap, to `next`, the first
   * one ending past `taken` (as this class keeps them); throws if not.
   */
  static resumed(state: { next: number; taken: number; pieces: readonly InputPiece[] }): UntakenInput {
    const { next, taken, pieces } = state;
    if (!Number.isSafeInteger(next) || !Number.isSafeInteger(taken) || taken < 0 || taken > next) throw new RangeError(`untaken input from ${taken} to ${next} is not a range`);
    let end = pieces.length > 0 ? pieces[0]!.at : taken;
    if (end > taken || (pieces.length > 0 && pieces[0]!.at + pieces[0]!.data.length <= taken)) throw new RangeError('the first untaken piece does not cover the first byte not taken');
    for (const piece of pieces) {
      if (piece.at !== end || piece.data.length === 0) throw new RangeError(`an untaken piece at ${piece.at} does not follow the one before (${end})`);
      end += piece.data.length;
    }
    if (end !== next) throw new RangeError(`the untaken pieces end at ${end}, not at ${next}`);
    const resumed = new UntakenInput();
    resumed.pieces.push(...pieces.map((p) => ({ at: p.at, data: p.data.slice() })));
    resumed.next = next;
    resumed.takenTotal = taken;
    resumed.sentEnd = taken;
    return resumed;
  }

  /** The number the next byte typed gets. */
  get nextAt(): number {
    return this.next;
  }

  /** How many bytes the holder is known to have taken (the highest INPUT_TAKEN). */
  get taken(): number {
    return this.takenTotal;
  }

  /** Bytes typed and not yet known to be taken: what a reconnect sends again. */
  get untakenBytes(): number {
    return this.next - this.takenTotal;
  }

  /**
   * Numbers bytes typed and keeps them as INPUT_AT pieces
   * (MAX_INPUT_BYTES_PER_FRAME at most, never cutting a UTF-8 character).
   */
  add(data: Uint8Array): void {
    for (const part of splitInput(data, MAX_INPUT_BYTES_PER_FRAME)) {
      if (part.length === 0) continue;
      // A copy: the caller's buffer may be reused while this waits for INPUT_TAKEN.
      this.pieces.push({ at: this.next, data: part.slice() });
      this.next += part.length;
    }
  }

  /** The pieces not yet sent on this connection, oldest first; they count as sent from now on. */
  unsent(): InputPiece[] {
    const from = this.sentEnd;
    this.sentEnd = this.next;
    return this.pieces.filter((p) => p.at + p.data.length > from);
  }

  /**
   * A new connection: nothing not yet taken counts as sent any more (bytes
   * in a dead socket may never have reached the server), so the next
   * unsent() has it all again, at the same numbers.
   */
  rewind(): void {
    this.sentEnd = this.takenTotal;
  }

  /**
   * Drops what is not yet taken, for good: it was typed for a program that
   * is gone (the session was revived: a new holder, a new program). The
   * numbering goes on; a holder that does not know this writer starts its
   * count wherever the writer's next bytes start.
   */
  forget(): void {
    this.pieces.length = 0;
    this.takenTotal = this.next;
    this.sentEnd = this.next;
  }

  /**
   * INPUT_TAKEN: the holder has `total` bytes. Pieces wholly below it are
   * dropped; one it covers in part is kept whole (sent again, the holder
   * drops the part it has). Returns whether anything new was covered. A
   * total past what was typed (not this viewer's count) changes nothing.
   */
  take(total: number): boolean {
    if (total <= this.takenTotal || total > this.next) return false;
    this.takenTotal = total;
    let done = 0;
    while (done < this.pieces.length && this.pieces[done]!.at + this.pieces[done]!.data.length <= total) done++;
    this.pieces.splice(0, done);
    this.sentEnd = Math.max(this.sentEnd, total);
    return true;
  }
}
