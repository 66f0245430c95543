// Module hooks for a fuzz worker (registered with node:module's register):
// the project modules a target is guided by load in their instrumented form
// (made once, in the main thread, by instrument.ts), so the fuzz loop sees
// which branches each input took. Everything else loads as it is.
import type { InitializeHook, LoadHook } from 'node:module';

export interface CoverageLoaderData {
  /** The instrumented source of each module, by file URL. */
  instrumented: Record<string, string>;
}

let instrumented: Record<string, string> = {};

export const initialize: InitializeHook<CoverageLoaderData> = (data) => {
  instrumented = data.instrumented;
};

export const load: LoadHook = async (url, context, nextLoad) => {
  const source = instrumented[url];
  if (source === undefined) return nextLoad(url, context);
  return { format: 'module', source, shortCircuit: true };
};
