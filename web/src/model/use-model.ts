// The one way a component reads a model (model.ts): it re-renders when the
// model's state changes, and never holds a copy of its own.
import { useSyncExternalStore } from 'react';

export interface Readable<S> {
  readonly state: S;
  subscribe(listener: () => void): () => void;
}

export function useModel<S>(model: Readable<S>): S {
  return useSyncExternalStore(model.subscribe, () => model.state);
}
