// The input a fuzz worker is running, in memory the supervisor can read while
// the worker's thread is stuck in it (a hang) or gone (out of memory): the
// supervisor has no other way to learn which input did it.
const HEADER_INTS = 2;
const EXECUTIONS = 0;
const LENGTH = 1;

export class CurrentInput {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, HEADER_INTS);
    this.bytes = new Uint8Array(buffer, HEADER_INTS * 4);
  }

  static create(maxLength: number): CurrentInput {
    return new CurrentInput(new SharedArrayBuffer(HEADER_INTS * 4 + maxLength));
  }

  /** Called before each execution: the input, and one more execution begun. */
  begin(input: Uint8Array): void {
    const n = Math.min(input.length, this.bytes.length);
    this.bytes.set(input.subarray(0, n));
    Atomics.store(this.header, LENGTH, n);
    Atomics.add(this.header, EXECUTIONS, 1);
  }

  /** Executions begun so far (the one running included). */
  get executions(): number {
    return Atomics.load(this.header, EXECUTIONS);
  }

  /** A copy of the input last begun. */
  input(): Uint8Array {
    return this.bytes.slice(0, Atomics.load(this.header, LENGTH));
  }
}
