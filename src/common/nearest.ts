// "Did you mean …?": which known words a mistyped one is close to. Used for
// verbs (`tend atach`) and session names (`:vmi`), so one measure of
// closeness serves the CLI and the server alike.

/**
 * Edits (insert, delete, substitute, or swap two neighbours) that turn `a`
 * into `b`, each costing 1: the restricted Damerau–Levenshtein distance
 * ("optimal string alignment"). Swaps count once because two fingers landing
 * in the wrong order (`atatch`, `vmi`) is the commonest typing slip.
 * Case counts here; nearest() folds it.
 */
export function editDistance(a: string, b: string): number {
  // Three rows suffice: a swap looks back two characters.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, beforePrevious[j - 2]! + 1);
      }
      current.push(best);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

export interface NearestOptions {
  /**
   * The most edits a candidate may be from the word. By default a third of
   * the word's length, at least 1: one slip in a short word, more in a long
   * one, and never a wild guess (`x` is not "close" to `ls`).
   */
  maxDistance?: number;
}

/**
 * The candidates within reach of `word`, closest first (ties keep the
 * candidates' order), compared without regard to case, so `:HTOP` finds
 * `htop`. A candidate equal to the word in every letter but case is at
 * distance 0 and comes first.
 */
export function nearest(word: string, candidates: readonly string[], options: NearestOptions = {}): string[] {
  const limit = options.maxDistance ?? Math.max(1, Math.floor(word.length / 3));
  const folded = word.toLowerCase();
  return candidates
    .map((candidate, order) => ({ candidate, order, distance: editDistance(folded, candidate.toLowerCase()) }))
    .filter((c) => c.distance <= limit)
    .sort((x, y) => x.distance - y.distance || x.order - y.order)
    .map((c) => c.candidate);
}
