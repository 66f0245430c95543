// Why a server could not start, in the one line its starter prints. The
// common causes are the places it must write: TEND_HOME (store, checkpoints,
// logs) and the runtime directory (sockets, the pid lock). Those are said as
// what they mean and what to do; anything else is its message's first line.
import { diskTroubleOf } from './disk-trouble.js';
import type { TendPaths } from './paths.js';

export function startFailureMessage(err: unknown, paths: TendPaths): string {
  const trouble = diskTroubleOf(err);
  const said = firstLine(err instanceof Error ? err.message : String(err));
  if (trouble === null || (err instanceof Error && err.name === 'StoreError')) return said;
  const inRuntime = trouble.path !== undefined && isWithin(trouble.path, paths.runtimeDir);
  const place = inRuntime
    ? `the runtime directory ${paths.runtimeDir} (sockets and the server's pid file)`
    : `TEND_HOME ${paths.home} (the store, checkpoints and logs)`;
  const file = trouble.path !== undefined ? `; cannot write ${trouble.path}` : '';
  if (trouble.kind === 'full') {
    return `the disk holding ${place} is full (${trouble.code}${file}): the tend server cannot start until there is free space there`;
  }
  const remedy = inRuntime ? 'set TEND_RUNTIME_DIR to a directory you can write' : 'set TEND_HOME to a directory you can write';
  return `${place} cannot be written: ${trouble.reason} (${trouble.code}${file}). The tend server cannot start there; make it writable, or ${remedy}`;
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
