// Under systemd, each holder starts in a transient scope of its own, so that
// it is not in the service's cgroup: stopping or restarting the service then
// stops the server alone, and every terminal goes on. systemd-run --scope
// registers the scope and execs the holder in it (same process, same pipe).
// Where systemd-run cannot (no user bus, an old systemd), holders start
// plainly, and the log says so once: they are then in the service's cgroup,
// where the unit's KillMode=process still leaves them alone.
import type { HolderLauncher } from '../holder-client/spawn-holder.js';
import type { Logger } from './log.js';
import type { RunningService } from './running-service.js';

/** `systemd-run --user --scope` in front of a holder, unit named after its session. */
function scopeCommand(sessionId: string): string[] {
  // The time keeps names unique: a session's earlier scope may live on while a program it left behind runs.
  return ['systemd-run', '--user', '--scope', '--quiet', '--collect',
    `--unit=tend-holder-${sessionId}-${Date.now().toString(36)}`, `--description=tend holder of session ${sessionId}`, '--'];
}

export function holderLauncherFor(service: RunningService, log: Logger): HolderLauncher | undefined {
  if (service !== 'systemd') return undefined;
  let gaveUp = false;
  return {
    prefix: (sessionId) => (gaveUp ? null : scopeCommand(sessionId)),
    failed(why) {
      if (gaveUp) return;
      gaveUp = true;
      log.warn(`holders start without a scope of their own from now on (${why}): they share the service's cgroup, which KillMode=process spares on stop and restart`);
    },
  };
}
