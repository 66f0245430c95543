// What a service manager runs: this build's server, in the foreground (no
// --ready-fd: nobody waits on a pipe; the manager is the parent), writing its
// log where `tend logs` reads it, with the environment it needs spelled out,
// because a service manager's environment is not the user's shell's.
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { homedir } from 'node:os';
import { serverNodeFlags } from '../../common/node-flags.js';

export type ServiceKind = 'systemd' | 'launchd';

export interface ServiceCommand {
  /** Absolute path of the program (this Node). */
  program: string;
  args: string[];
  /** Variables the service sets, in a stable order. */
  env: Array<[string, string]>;
}

const serverMain = fileURLToPath(new URL('../../server/main.js', import.meta.url));
/** The tree this CLI runs from: serverMain is <tree>/dist/src/server/main.js. */
const ownTree = resolve(dirname(serverMain), '..', '..', '..');

/**
 * The server's main.js as the service should name it. A tree `tend upgrade`
 * installed (TEND_HOME/versions/<build>, `current` pointing at it) is named
 * through `current`, so that the service runs whichever build is current when
 * it next starts; any other tree (a checkout, a package) by its own path.
 */
export function serviceServerMain(home: string): string {
  const current = join(home, 'versions', 'current');
  try {
    if (realpathSync(current) === realpathSync(ownTree)) return join(current, relative(ownTree, serverMain));
  } catch {
    /* no versions installed here */
  }
  return serverMain;
}

/**
 * Variables carried from the shell that installs the service when set there:
 * tend's own settings (so the service's server is the one this shell's
 * commands expect: same runtime directory, port, holder) and the locale the
 * sessions' programs should start with.
 */
const CARRIED_VARIABLES = ['TEND_RUNTIME_DIR', 'TEND_PORT', 'TEND_HOLDER', 'TEND_WINDOW_SIZE', 'LANG', 'SHELL'] as const;

/**
 * TEND_SERVICE tells the server which manager runs it (health's `service`,
 * and under systemd each holder in its own scope); the server checks it
 * against what the manager itself sets (src/server/running-service.ts).
 * `mainPath` names another build's server (tend upgrade moving the server
 * back under the service names the build it installed).
 */
export function serviceCommand(kind: ServiceKind, home: string, env: NodeJS.ProcessEnv = process.env, mainPath: string = serviceServerMain(home)): ServiceCommand {
  const vars: Array<[string, string]> = [
    ['TEND_HOME', home],
    ['TEND_SERVICE', kind],
    // The manager's own PATH is short (/usr/bin:/bin): sessions started
    // without an environment of their own get the server's.
    ['PATH', env.PATH ?? '/usr/local/bin:/usr/bin:/bin'],
  ];
  // launchd gives an agent little beyond PATH; systemd's user manager sets HOME itself.
  if (kind === 'launchd') vars.push(['HOME', env.HOME && env.HOME !== '' ? env.HOME : homedir()]);
  for (const name of CARRIED_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '') vars.push([name, value]);
  }
  return { program: process.execPath, args: [...serverNodeFlags(), mainPath], env: vars };
}
