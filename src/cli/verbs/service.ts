// `tend service install|uninstall|status`: tend's server as a user service
// (systemd on Linux, launchd on macOS), restarted when it fails, started at
// login, and never taking a terminal with it: holders run outside the job.
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { nearest } from '../../common/nearest.js';
import { serviceManagerFor } from '../service/service-for.js';
import { installService, renderServiceFile, serviceStatus, uninstallService, type StatusOutcome } from '../service/service-actions.js';

const ACTIONS = ['install', 'uninstall', 'status'];

function statusText(s: StatusOutcome): string {
  const lines: string[] = [];
  if (!s.installed) lines.push(`${s.name} (${s.kind}): not installed (${s.file} does not exist)`);
  else if (s.job === null) lines.push(`${s.name} (${s.kind}): installed (${s.file})`);
  else lines.push(`${s.name} (${s.kind}): installed, ${s.job.active ? 'active' : s.job.state}${s.job.pid !== null ? ` (pid ${s.job.pid})` : ''}; ${s.file}`);
  if (s.managerProblem !== null) lines.push(`manager: ${s.managerProblem}`);
  if (!s.server.running) lines.push('server: not running');
  else if (s.managedByService) lines.push(`server: running (pid ${s.server.pid}), run by ${s.name}`);
  else lines.push(`server: running (pid ${s.server.pid}), not run by ${s.name}${s.server.service !== null ? ` (it says ${s.server.service} runs it)` : ' (started by tend itself)'}`);
  return lines.join('\n');
}

export const serviceVerb: Verb = {
  name: 'service',
  summary: 'run the server as a user service (systemd, launchd)',
  usage: `tend service install|uninstall|status [--print] [--manager systemd|launchd] [--json]

install writes a systemd user unit (Linux) or a launchd agent (macOS) for
this TEND_HOME and starts it; a server tend started by itself is stopped
first, so there is one server. The manager restarts the server when it fails
and starts it at login. Terminals never belong to the service: stopping,
restarting or uninstalling it closes none. --print shows the file and does
nothing else. uninstall stops the service and removes the file; the next
tend command starts a server by itself again. status says whether it is
installed, whether it runs, and whether the running server is its.`,
  options: {
    ...jsonOption,
    print: { type: 'boolean' },
    manager: { type: 'string' },
  },
  operands: '[ACTION]',
  exits: [{ status: 1, meaning: 'status: not installed; otherwise failed (the message says why)' }],
  async run({ args, client, stdout }) {
    const [action = 'status'] = args.positionals;
    const json = args.values.json === true;
    if (!ACTIONS.includes(action)) {
      const close = nearest(action, ACTIONS);
      throw usageError(`no action "${action}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; service takes install, uninstall or status`);
    }
    if (args.values.print === true && action !== 'install') throw usageError('--print goes with install: it shows the file install would write');
    const manager = serviceManagerFor(client.paths.home, args.values.manager as string | undefined);
    const say = (text: string, value: unknown) => (json ? printJson(stdout, value) : stdout.write(`${text}\n`));
    switch (action) {
      case 'install': {
        if (args.values.print === true) {
          const text = renderServiceFile(manager);
          if (json) printJson(stdout, { kind: manager.kind, name: manager.name, file: manager.file, text });
          else stdout.write(text);
          return 0;
        }
        const done = await installService(client, manager);
        const stopped = done.stoppedPid !== null ? `; the server tend had started (pid ${done.stoppedPid}) was stopped first, sessions kept` : '';
        say([`installed ${done.name} (${done.kind}): ${done.file}`, `server: running (pid ${done.pid}), run by ${done.name}${stopped}`, ...done.advice].join('\n'), done);
        return 0;
      }
      case 'uninstall': {
        const done = await uninstallService(manager);
        if (!done.removed) say(`${done.name} is not installed (${done.file} does not exist)`, done);
        else if (done.managerProblem !== null) say(`removed ${done.file}; nothing was stopped: ${done.managerProblem}`, done);
        else say(`removed ${done.name} (${done.kind}); its server stopped and every session keeps running: the next tend command starts a server by itself`, done);
        return 0;
      }
      default: {
        const status = await serviceStatus(client, manager);
        say(statusText(status), status);
        return status.installed ? 0 : 1;
      }
    }
  },
};
