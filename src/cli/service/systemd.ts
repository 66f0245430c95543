// `tend service` on Linux: a systemd user unit, driven with systemctl --user.
// Lingering is checked with loginctl: without it the user's manager, and
// every scope a holder runs in, ends at the user's last logout.
import { userInfo } from 'node:os';
import { runTool, toolFailure } from './run-tool.js';
import { renderSystemdUnit } from './systemd-unit.js';
import { serviceCommand } from './service-command.js';
import { ServiceManagerError, type JobState, type ServiceManager } from './service-manager.js';
import type { ServiceNames } from './service-names.js';

/** What `systemctl --user is-system-running` says of a manager that can take a unit. */
const USABLE_MANAGER_STATES = new Set(['running', 'degraded', 'starting', 'initializing', 'maintenance']);

async function systemctl(args: string[]): Promise<string> {
  const full = ['--user', ...args];
  const result = await runTool('systemctl', full);
  if (!result.ok) throw new ServiceManagerError(toolFailure('systemctl', full, result));
  return result.stdout;
}

export function systemdManager(names: ServiceNames, env: NodeJS.ProcessEnv = process.env): ServiceManager {
  const unit = names.systemdUnit;
  return {
    kind: 'systemd',
    name: unit,
    file: names.systemdUnitFile,
    render: () => renderSystemdUnit(serviceCommand('systemd', names.home, env), names.home),

    async unavailable() {
      const result = await runTool('systemctl', ['--user', 'is-system-running']);
      if (result.missing) return 'systemctl is not installed: this system has no systemd to run tend as a service';
      const state = result.stdout.trim();
      if (USABLE_MANAGER_STATES.has(state)) return null;
      const said = result.stderr.split('\n').map((l) => l.trim()).find((l) => l !== '');
      return `no systemd user manager runs for this user (systemctl --user is-system-running says "${state || 'nothing'}"${said ? `: ${said}` : ''})`;
    },

    async activate() {
      await systemctl(['daemon-reload']);
      const before = await this.state();
      await systemctl(['enable', unit]);
      // An active unit runs the file it was started with: restart it onto the new one (holders stay).
      await systemctl([before.active ? 'restart' : 'start', unit]);
    },

    async deactivate() {
      await systemctl(['disable', '--now', unit]);
    },

    async forget() {
      await systemctl(['daemon-reload']);
    },

    async state(): Promise<JobState> {
      const text = await systemctl(['show', unit, '--property=ActiveState', '--property=MainPID']);
      const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
      const state = field('ActiveState') || 'unknown';
      const pid = Number(field('MainPID'));
      return { active: state === 'active' || state === 'reloading', state, pid: Number.isInteger(pid) && pid > 0 ? pid : null };
    },

    async advice() {
      const user = userInfo().username;
      const result = await runTool('loginctl', ['show-user', user, '--property=Linger', '--value']);
      if (!result.ok) return [`could not check lingering (${toolFailure('loginctl', ['show-user', user], result)}); without it sessions end when you log out`];
      if (result.stdout.trim() === 'yes') return [];
      return [
        `lingering is off for ${user}: your systemd user manager, the server and every terminal stop at your last logout.`,
        `For sessions that outlive logout, run: loginctl enable-linger ${user}`,
      ];
    },
  };
}
