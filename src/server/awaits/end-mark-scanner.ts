// Spots a shell's end mark (OSC 133;D or 633;D) in a session's raw output,
// marks split across reads included. `await` watches for one between typing
// its line and that line's command starting: a shell that ends a line
// without starting a command of it (a syntax error, a builtin that read the
// line, Ctrl-C at the prompt) says so with an end mark and no start mark.
const END_MARKS = ['\x1b]133;D', '\x1b]633;D'].map((m) => Buffer.from(m, 'latin1'));
const LONGEST_MARK_BYTES = Math.max(...END_MARKS.map((m) => m.length));

export class EndMarkScanner {
  /** The last bytes of the previous read: a mark may begin there. */
  private carry: Buffer = Buffer.alloc(0);

  /** True if an end mark is complete in `bytes` (with what the previous reads ended with). */
  feed(bytes: Uint8Array): boolean {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const joined = this.carry.length === 0 ? view : Buffer.concat([this.carry, view]);
    const found = END_MARKS.some((mark) => joined.includes(mark));
    // Copied: the read buffer is reused after this call.
    this.carry = Buffer.from(joined.subarray(Math.max(0, joined.length - (LONGEST_MARK_BYTES - 1))));
    return found;
  }
}
