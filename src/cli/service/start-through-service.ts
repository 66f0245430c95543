// A tend command that finds no server starts one; when a service is
// installed for this TEND_HOME, it asks the service manager to, so the
// server is the service's (restarted on failure, started at login) and never
// a second one beside it: that one would take the home's lock and leave the
// service failing to start.
import { existsSync } from 'node:fs';
import { serviceNames } from './service-names.js';
import { runTool, toolFailure } from './run-tool.js';

/**
 * True when the manager took the start (the caller still waits for the
 * server to answer); false when no service is installed here, or, said on
 * stderr, when the manager refused.
 */
export async function startThroughService(home: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const command = serviceStartCommand(home, env);
  if (command === null) return false;
  const result = await runTool(command[0], command[1], env);
  if (result.ok) return true;
  process.stderr.write(`tend: the installed service could not start the server (${toolFailure(command[0], command[1], result)}); starting one without it\n`);
  return false;
}

/** The manager's command that starts this home's installed service, or null when none is installed here. */
export function serviceStartCommand(home: string, env: NodeJS.ProcessEnv = process.env): [string, string[]] | null {
  const names = serviceNames(home, env);
  if (process.platform === 'linux' && existsSync(names.systemdUnitFile)) return ['systemctl', ['--user', 'start', names.systemdUnit]];
  if (process.platform === 'darwin' && existsSync(names.launchdPlistFile)) return ['launchctl', ['kickstart', `gui/${process.getuid?.() ?? 0}/${names.launchdLabel}`]];
  return null;
}
