// `tend service` on macOS: a launchd agent in the user's GUI domain, loaded
// with `launchctl bootstrap gui/<uid> FILE` and removed with `launchctl
// bootout gui/<uid>/<label>` (the forms that replaced load/unload).
import { join } from 'node:path';
import { runTool, toolFailure } from './run-tool.js';
import { renderLaunchdPlist } from './launchd-plist.js';
import { serviceCommand } from './service-command.js';
import { ServiceManagerError, type JobState, type ServiceManager } from './service-manager.js';
import type { ServiceNames } from './service-names.js';

async function launchctl(args: string[]): Promise<string> {
  const result = await runTool('launchctl', args);
  if (!result.ok) throw new ServiceManagerError(toolFailure('launchctl', args, result));
  return result.stdout;
}

export function launchdManager(names: ServiceNames, env: NodeJS.ProcessEnv = process.env): ServiceManager {
  const uid = process.getuid?.() ?? 0;
  const domain = `gui/${uid}`;
  const target = `${domain}/${names.launchdLabel}`;
  const loaded = async () => (await runTool('launchctl', ['print', target])).ok;
  return {
    kind: 'launchd',
    name: names.launchdLabel,
    file: names.launchdPlistFile,
    render: () => renderLaunchdPlist(serviceCommand('launchd', names.home, env), names.launchdLabel, join(names.home, 'logs')),

    async unavailable() {
      const result = await runTool('launchctl', ['print', domain]);
      if (result.missing) return 'launchctl is not installed: this system has no launchd to run tend as a service';
      if (!result.ok) return `launchd has no GUI domain for this user (${toolFailure('launchctl', ['print', domain], result)}); log in at the Mac itself once`;
      return null;
    },

    async activate() {
      // A job loaded from an older file keeps it until it is booted out; its
      // holders stay (they left its process group, and AbandonProcessGroup).
      if (await loaded()) await launchctl(['bootout', target]);
      await launchctl(['enable', target]);
      await launchctl(['bootstrap', domain, names.launchdPlistFile]);
    },

    async deactivate() {
      if (await loaded()) await launchctl(['bootout', target]);
    },

    async forget() {
      // bootout already unloaded it; launchd does not read the file again.
    },

    async state(): Promise<JobState> {
      const result = await runTool('launchctl', ['print', target]);
      if (!result.ok) return { active: false, state: 'not loaded', pid: null };
      const state = /^\s*state = (.+)$/m.exec(result.stdout)?.[1]?.trim() ?? 'loaded';
      const pid = Number(/^\s*pid = (\d+)$/m.exec(result.stdout)?.[1]);
      return { active: state === 'running', state, pid: Number.isInteger(pid) && pid > 0 ? pid : null };
    },

    async advice() {
      return [];
    },
  };
}
