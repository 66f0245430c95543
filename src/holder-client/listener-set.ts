// A set of listeners for one event. Subscribing returns a Disposable, so the
// owner of a subscription releases it in its own dispose().

import { toDisposable, type Disposable } from '../common/lifecycle.js';

export class ListenerSet<T> {
  private readonly listeners = new Set<(event: T) => void>();

  add(listener: (event: T) => void): Disposable {
    // Wrap so the same function subscribed twice is two subscriptions.
    const entry = (event: T): void => listener(event);
    this.listeners.add(entry);
    return toDisposable(() => this.listeners.delete(entry));
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Calls each listener; one that throws does not stop the others, and its error is rethrown later. */
  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
