// A-B-A-B alternation: in each round every side runs once, one after the
// other, then the next round starts. A ratio between two sides is then taken
// within a round, between measurements seconds apart, so a noisy neighbour
// that slows one round slows both sides of its ratio.

export interface Side<T> {
  name: string;
  run(round: number): Promise<T>;
}

export type RoundSamples<T> = Map<string, T[]>;

export async function alternate<T>(
  rounds: number,
  sides: readonly Side<T>[],
  onSample?: (side: string, round: number, sample: T) => void,
): Promise<RoundSamples<T>> {
  const samples: RoundSamples<T> = new Map(sides.map((s) => [s.name, [] as T[]]));
  for (let round = 0; round < rounds; round++) {
    for (const side of sides) {
      const sample = await side.run(round);
      samples.get(side.name)!.push(sample);
      onSample?.(side.name, round, sample);
    }
  }
  return samples;
}

/** One numeric field of every sample of one side, in round order. */
export function field<T>(samples: RoundSamples<T>, side: string, pick: (s: T) => number): number[] {
  return (samples.get(side) ?? []).map(pick);
}
