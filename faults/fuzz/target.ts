// What a fuzz target is: one parser, fed arbitrary bytes. Its contract: the
// input either decodes or is refused with the module's own typed error;
// anything else it throws is a finding, and so is a hang or a run-away heap
// (the supervisor in run-target.ts watches for those).

export interface FuzzTarget {
  /** Also the name of its seed folder, faults/fuzz/corpus/<name>/. */
  name: string;
  /** What it feeds the bytes to, for the log. */
  parses: string;
  /**
   * Runs one input. Returns when the parser decoded it or refused it the
   * documented way; throws (anything) when the contract is broken.
   */
  fuzz(data: Uint8Array): void;
  /** Byte strings worth splicing in, besides the instrumented modules' constants. */
  tokens?: Uint8Array[];
}

/** A broken contract: the parser answered, but wrongly (a round trip that changes the frame, say). */
export class ContractBroken extends Error {
  override readonly name = 'ContractBroken';
}
