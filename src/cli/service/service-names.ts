// What `tend service` calls the service of a TEND_HOME, and where its file
// goes. The default home (~/.tend) gets the short names a person would type
// (tend.service, tend.server); any other home gets its own, named by the same
// short hash of the home the runtime directory is named by, so two homes can
// each have a service and installing one never overwrites the other's.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface ServiceNames {
  /** The TEND_HOME the service serves, absolute. */
  home: string;
  /** True for ~/.tend. */
  defaultHome: boolean;
  /** The systemd user unit, with its suffix: tend.service or tend-<hash>.service. */
  systemdUnit: string;
  /** Where the unit file goes: $XDG_CONFIG_HOME/systemd/user/ (a user unit directory systemd reads). */
  systemdUnitFile: string;
  /** The launchd job's label: tend.server or tend.server.<hash>. */
  launchdLabel: string;
  /** ~/Library/LaunchAgents/<label>.plist: launchd reads a user's agents there. */
  launchdPlistFile: string;
}

/** Twelve hex digits of sha256(home), as src/common/paths.ts names the runtime directory. */
function homeHash(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 12);
}

export function serviceNames(home: string, env: NodeJS.ProcessEnv = process.env): ServiceNames {
  const userHome = env.HOME && env.HOME !== '' ? env.HOME : homedir();
  const absoluteHome = resolve(home);
  const defaultHome = absoluteHome === resolve(join(userHome, '.tend'));
  const suffix = defaultHome ? '' : homeHash(absoluteHome);
  const systemdUnit = defaultHome ? 'tend.service' : `tend-${suffix}.service`;
  const launchdLabel = defaultHome ? 'tend.server' : `tend.server.${suffix}`;
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(userHome, '.config');
  return {
    home: absoluteHome,
    defaultHome,
    systemdUnit,
    systemdUnitFile: join(configHome, 'systemd', 'user', systemdUnit),
    launchdLabel,
    launchdPlistFile: join(userHome, 'Library', 'LaunchAgents', `${launchdLabel}.plist`),
  };
}
