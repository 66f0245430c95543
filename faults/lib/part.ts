// What a part of the fault suite is, and what it gives back: figures a person
// reads (printed, and written to docs/reliability.md by a full run), and
// whether every target was met.

export interface Figure {
  name: string;
  value: string;
  /** The value the part aims at ("0", "flat"); a figure without one is context. */
  target?: string;
  /** False when a target was missed. */
  met?: boolean;
}

export interface PartResult {
  part: string;
  title: string;
  figures: Figure[];
  /** Findings worth reading: a mismatch's first differences, a message that was not clear. */
  findings: string[];
  /** Set when the part could not run here (and why): printed, never a failure. */
  skipped?: string;
  seconds: number;
}

export interface RunOptions {
  short: boolean;
  /** Seed for every random choice of the run: printed, so a run can be replayed. */
  seed: number;
  /** --kills: the crash loop's kill count instead of the run's default. */
  kills?: number;
  /** --soak-minutes: the soak's length instead of the run's default. */
  soakMinutes?: number;
  /** --fuzz-short: the fuzz part's short run inside a longer one. */
  fuzzShort?: boolean;
  log(line: string): void;
}

export interface Part {
  name: string;
  title: string;
  run(options: RunOptions): Promise<Omit<PartResult, 'part' | 'title' | 'seconds'>>;
}

/** A figure with a target of zero. */
export function zeroTarget(name: string, value: number): Figure {
  return { name, value: String(value), target: '0', met: value === 0 };
}

export function figure(name: string, value: string | number): Figure {
  return { name, value: String(value) };
}

export function missedTargets(result: PartResult): Figure[] {
  return result.figures.filter((f) => f.met === false);
}
