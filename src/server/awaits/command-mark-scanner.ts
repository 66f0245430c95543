// Spots a shell's start and end marks (OSC 133;C / 633;C, 133;D / 633;D)
// in a session's raw output, marks split across reads included. `await`
// watches for them between typing its line and that line's command
// starting: a shell that ends a line without starting a command of it (a
// syntax error, a builtin that read the line, Ctrl-C at the prompt) says so
// with an end mark and no start mark; a start mark means the watch is over.
const START_MARKS = ['\x1b]133;C', '\x1b]633;C'].map((m) => Buffer.from(m, 'latin1'));
const END_MARKS = ['\x1b]133;D', '\x1b]633;D'].map((m) => Buffer.from(m, 'latin1'));
/** A mark split across reads has at most this many bytes in the earlier one. */
const SEAM_BYTES = Math.max(...[...START_MARKS, ...END_MARKS].map((m) => m.length)) - 1;

export interface MarksSeen {
  start: boolean;
  end: boolean;
}

export class CommandMarkScanner {
  /** The last bytes of the reads so far: a mark may begin there. */
  private carry: Buffer = Buffer.alloc(0);

  /** Which marks are complete in `bytes` (with what the previous reads ended with). */
  feed(bytes: Uint8Array): MarksSeen {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Only the seam is joined: the read itself is searched where it lies, never copied whole.
    const seam = this.carry.length === 0 ? null : Buffer.concat([this.carry, view.subarray(0, SEAM_BYTES)]);
    const seen = (marks: Buffer[]) => marks.some((m) => view.includes(m) || (seam !== null && seam.includes(m)));
    const result = { start: seen(START_MARKS), end: seen(END_MARKS) };
    // Copied: the read buffer is reused after this call.
    const tail = view.length >= SEAM_BYTES ? view.subarray(view.length - SEAM_BYTES) : Buffer.concat([this.carry, view]).subarray(-SEAM_BYTES);
    this.carry = Buffer.from(tail);
    return result;
  }
}
