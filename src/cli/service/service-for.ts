// Which service manager `tend service` uses: systemd on Linux, launchd on
// macOS, or the one asked for (--manager, e.g. to print a macOS agent's file
// on Linux).
import { CliError } from '../client.js';
import { usageError } from '../cli-error.js';
import { serviceNames } from './service-names.js';
import { systemdManager } from './systemd.js';
import { launchdManager } from './launchd.js';
import type { ServiceManager } from './service-manager.js';

export function serviceManagerFor(home: string, asked: string | undefined, env: NodeJS.ProcessEnv = process.env): ServiceManager {
  const kind = asked ?? (process.platform === 'darwin' ? 'launchd' : process.platform === 'linux' ? 'systemd' : null);
  if (kind === null) throw new CliError(`tend service knows systemd (Linux) and launchd (macOS), not ${process.platform}; start \`tend server start\` from your login scripts instead`);
  const names = serviceNames(home, env);
  if (kind === 'systemd') return systemdManager(names, env);
  if (kind === 'launchd') return launchdManager(names, env);
  throw usageError(`--manager takes systemd or launchd, not "${kind}"`);
}
