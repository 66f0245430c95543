// Starting a program that outlives `tend open` (a browser, the desktop's
// opener): in a session of its own, its output dropped, not waited for. The
// promise settles once the program has started (its pid) or failed to start
// (a person can act on the error), never when it ends.
import { spawn } from 'node:child_process';

export function launchDetached(command: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [program, ...args] = command;
  if (program === undefined) return Promise.reject(new Error('nothing to run'));
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { detached: true, stdio: 'ignore', env });
    child.once('error', (err) => reject(new Error(`${program} could not be started: ${err.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve(child.pid!);
    });
  });
}
