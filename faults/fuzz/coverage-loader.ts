// Module hooks for a fuzz worker (registered with node:module's register):
// the project's modules it loads come instrumented for edge coverage, so the
// fuzz loop sees which branches each input took. Everything else (Node's own
// modules, dependencies, the fuzzer itself) loads as it is.
import type { InitializeHook, LoadHook } from 'node:module';
import { instrumentModule } from './instrument.js';

export interface CoverageLoaderData {
  /** URL prefixes of the modules to instrument (the compiled project sources). */
  instrumentUnder: string[];
}

let prefixes: string[] = [];

export const initialize: InitializeHook<CoverageLoaderData> = (data) => {
  prefixes = data.instrumentUnder;
};

export const load: LoadHook = async (url, context, nextLoad) => {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module' || url.endsWith('.test.js') || !prefixes.some((p) => url.startsWith(p))) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source as Uint8Array);
  return { ...loaded, source: instrumentModule(source, url).code };
};
