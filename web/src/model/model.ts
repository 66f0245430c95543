// The state of a piece of the page, kept in a plain class a component only
// renders: `state` is a new object after every change (so React sees the
// change), `subscribe` hears each one. Components read it through useModel.
import { Emitter } from '../../../src/common/event.js';

export type Listener = () => void;

export abstract class Model<S extends object> {
  private current: S;
  private readonly changes = new Emitter<void>();

  protected constructor(initial: S) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  /** Arrow-bound, so it can be handed to useSyncExternalStore as it is. */
  readonly subscribe = (listener: Listener): (() => void) => {
    const subscription = this.changes.on(listener);
    return () => subscription.dispose();
  };

  /** Changes the state (a no-op when nothing in `change` differs) and tells every listener. */
  protected update(change: Partial<S>): void {
    let changed = false;
    for (const key of Object.keys(change) as Array<keyof S>) {
      if (!Object.is(this.current[key], change[key])) changed = true;
    }
    if (!changed) return;
    this.current = { ...this.current, ...change };
    this.changes.fire();
  }

  /** Forgets every listener (the owner disposes the model). */
  protected forgetListeners(): void {
    this.changes.dispose();
  }
}
