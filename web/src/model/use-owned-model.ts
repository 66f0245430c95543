// A model that lives as long as the component that made it: made once (a
// pure constructor), started once the component is on the page, stopped when
// it leaves. start() may run again after its stop (React's StrictMode does so).
import { useEffect, useState } from 'react';

export interface Startable {
  /** Starts timers, sockets and listeners; returns what stops them. */
  start(): () => void;
}

export function useOwnedModel<M extends Startable>(create: () => M): M {
  const [model] = useState(create);
  useEffect(() => model.start(), [model]);
  return model;
}
