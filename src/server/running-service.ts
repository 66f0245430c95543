// Which service manager runs this server, if any: `tend service` writes
// TEND_SERVICE into the unit or agent it installs, and the manager's own
// mark confirms it (systemd gives each service an INVOCATION_ID; launchd
// names its job in XPC_SERVICE_NAME). Read once, then taken out of this
// process's environment: a session started with the server's environment
// must not hand it to a server started from inside that session.
export type RunningService = 'systemd' | 'launchd' | null;

let decided: { service: RunningService } | null = null;

export function runningService(env: NodeJS.ProcessEnv = process.env): RunningService {
  if (decided !== null) return decided.service;
  const said = env.TEND_SERVICE;
  delete env.TEND_SERVICE;
  let service: RunningService = null;
  if (said === 'systemd' && (env.INVOCATION_ID ?? '') !== '') service = 'systemd';
  else if (said === 'launchd' && (env.XPC_SERVICE_NAME ?? '0') !== '0') service = 'launchd';
  decided = { service };
  return service;
}
