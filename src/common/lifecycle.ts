// Ownership of resources. Everything that holds a socket, a timer, a child or
// a terminal is a Disposable and is registered with its owner when created, so
// one dispose() releases it all: tests can start and stop servers a hundred
// times without leaking a descriptor.

export interface Disposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Disposes its members in reverse order of registration, each at most once. */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
      return item;
    }
    this.items.push(item);
    return item;
  }

  /**
   * Registers a timer from setTimeout/setInterval so dispose() clears it. The
   * timer's type is whatever the platform's setTimeout returns: the browser
   * app shares this file (through src/common/event.ts) and has no NodeJS types.
   */
  addTimer(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
    this.add(toDisposable(() => clearTimeout(timer)));
    return timer;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    while (this.items.length > 0) {
      const item = this.items.pop()!;
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}

/** A base for classes with a lifetime: register what you own with this.register(). */
export abstract class DisposableBase implements Disposable {
  protected readonly disposables = new DisposableStore();

  get isDisposed(): boolean {
    return this.disposables.isDisposed;
  }

  protected register<T extends Disposable>(item: T): T {
    return this.disposables.add(item);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
