// Many short runs per round for the CLI suites: within a round every side
// runs once, then every side again (A B C A B C …), N times; then the next
// round. A difference between two sides (tend minus bare Node) is taken
// between the medians of one round, measured in the same seconds.

import { median, percentile, summarize, type Summary } from './stats.js';

export interface CliSide {
  name: string;
  /** one run: its elapsed ms */
  run(): Promise<number>;
}

/** side name → one array of ms per round */
export type CliSamples = Map<string, number[][]>;

export async function interleave(
  rounds: number,
  runsPerRound: number,
  sides: readonly CliSide[],
  onRound?: (round: number, samples: CliSamples) => void,
): Promise<CliSamples> {
  const samples: CliSamples = new Map(sides.map((s) => [s.name, [] as number[][]]));
  for (let round = 0; round < rounds; round++) {
    for (const s of sides) samples.get(s.name)!.push([]);
    for (let i = 0; i < runsPerRound; i++) {
      for (const s of sides) samples.get(s.name)![round]!.push(await s.run());
    }
    onRound?.(round, samples);
  }
  return samples;
}

export interface CliFigures {
  /** every run of every round */
  all: Summary;
  p90: number;
  /** one median per round */
  roundMedians: number[];
}

export function figuresOf(samples: CliSamples, side: string): CliFigures {
  const perRound = samples.get(side) ?? [];
  const all = perRound.flat();
  return { all: summarize(all), p90: percentile(all, 90), roundMedians: perRound.map((r) => median(r)) };
}

/** Per round: median of `a` minus median of `b`. */
export function roundMedianDifferences(samples: CliSamples, a: string, b: string): number[] {
  const ma = figuresOf(samples, a).roundMedians;
  const mb = figuresOf(samples, b).roundMedians;
  return ma.slice(0, mb.length).map((x, i) => x - mb[i]!);
}
