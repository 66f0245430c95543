// One event with its listeners: the server, the holder client and the browser
// app all announce things this way. Subscribing returns a Disposable, so a
// subscriber releases it in its own dispose().
//
// A listener that throws: the other listeners still run, and the error is
// rethrown on a microtask of its own, never into the code that fired. The
// firer is in the middle of its own work (parsing bytes, reading a socket) and
// a subscriber's bug must not leave that work half done; nor may one
// subscriber's bug cost the others the event. Swallowing the error would hide
// the bug, so it surfaces as an uncaught error where every other bug does: the
// server logs it and exits (the holders keep every terminal), the browser
// prints it to the console.
//
// No other code may depend on Node or the DOM here: the browser app imports it.

import type { Disposable } from './lifecycle.js';

export type Listener<T> = (event: T) => void;

interface Subscription<T> {
  readonly listener: Listener<T>;
  /** Cleared on unsubscribe, so a fire already under way skips it. */
  live: boolean;
}

const NOTHING_TO_RELEASE: Disposable = { dispose() {} };

export class Emitter<T> implements Disposable {
  private readonly subscriptions = new Set<Subscription<T>>();
  private disposed = false;

  /**
   * Each call is its own subscription, even for a function already subscribed.
   * After dispose() nothing is kept: the emitter will never fire again.
   */
  on(listener: Listener<T>): Disposable {
    if (this.disposed) return NOTHING_TO_RELEASE;
    const subscription: Subscription<T> = { listener, live: true };
    this.subscriptions.add(subscription);
    return {
      dispose: () => {
        subscription.live = false;
        this.subscriptions.delete(subscription);
      },
    };
  }

  /**
   * Calls the listeners subscribed when the fire began, in subscription order.
   * One removed meanwhile is not called after its removal; one added meanwhile
   * hears the next event, not this one.
   */
  fire(event: T): void {
    if (this.subscriptions.size === 0) return;
    for (const subscription of [...this.subscriptions]) {
      if (!subscription.live) continue;
      try {
        subscription.listener(event);
      } catch (err) {
        reportListenerError(err);
      }
    }
  }

  /** How many listeners are subscribed. */
  get size(): number {
    return this.subscriptions.size;
  }

  /** Drops every listener; later subscriptions are refused quietly and fire() does nothing. */
  dispose(): void {
    this.disposed = true;
    for (const subscription of this.subscriptions) subscription.live = false;
    this.subscriptions.clear();
  }
}

function reportListenerError(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}
