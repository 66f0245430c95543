// Awaits take turns at a session: one checks the prompt and types its line,
// and the next one starts only once that line's command has started (or a
// short wait has passed). Two awaits' lines then never interleave on one
// prompt, and the second one finds the first's command running and is
// refused with its name, instead of typing into it.
export class TypingTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `turn` after every earlier turn of `key` has finished. */
  async take<T>(key: string, turn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    try {
      await before;
      return await turn();
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
