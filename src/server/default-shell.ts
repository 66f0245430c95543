// The program a session runs when none is given: the user's login shell.
import { readFileSync, existsSync } from 'node:fs';
import { userInfo } from 'node:os';

export function defaultShellArgv(env: NodeJS.ProcessEnv | Record<string, string>): string[] {
  if (env.SHELL && existsSync(env.SHELL)) return [env.SHELL];
  try {
    const uid = userInfo().uid;
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (Number(f[2]) === uid && f[6] && existsSync(f[6])) return [f[6]];
    }
  } catch {
    /* fall through */
  }
  return ['/bin/sh'];
}
