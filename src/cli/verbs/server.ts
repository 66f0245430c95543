import { existsSync } from 'node:fs';
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError, type TendClient } from '../client.js';
import { usageError } from '../cli-error.js';
import { nearest } from '../../common/nearest.js';
import { API_ROUTES } from '../../protocol/api/index.js';
import { serviceManagerFor } from '../service/service-for.js';
import { isAlive } from '../../common/home-lock.js';

const STOP_WAIT_MS = 15_000;

async function waitGone(client: TendClient, pid: number): Promise<void> {
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new CliError(`the server (pid ${pid}) did not stop within ${STOP_WAIT_MS / 1000} s; see ${client.paths.serverLog}`);
}

async function stop(client: TendClient): Promise<number | null> {
  const running = await client.isRunning();
  if (!running) return null;
  await client.raw(API_ROUTES.stopServer.method, API_ROUTES.stopServer.path);
  await waitGone(client, running.pid);
  return running.pid;
}

/** Which service runs the server, in `tend server status`'s words. */
function serviceLine(service: unknown, home: string): string {
  if (service !== 'systemd' && service !== 'launchd') return 'service: none runs it (`tend service install` makes one)';
  return `service: run by ${service} (${serviceManagerFor(home, service).name}; \`tend service status\` says more)`;
}

/** The service that runs the server now, if one does (its health says). */
async function runningService(client: TendClient): Promise<{ kind: 'systemd' | 'launchd'; name: string; installed: boolean } | null> {
  try {
    const h = (await client.raw<{ service?: unknown }>(API_ROUTES.health.method, API_ROUTES.health.path, undefined, 5000)).body;
    if (h.service !== 'systemd' && h.service !== 'launchd') return null;
    const manager = serviceManagerFor(client.paths.home, h.service);
    return { kind: h.service, name: manager.name, installed: existsSync(manager.file) };
  } catch {
    return null;
  }
}

function nearestAction(typed: string): string {
  const close = nearest(typed, ['start', 'stop', 'restart', 'status']);
  return close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
}

export const serverVerb: Verb = {
  name: 'server',
  summary: 'start, stop, restart or check the server',
  usage: `tend server start|stop|restart|status [--json]

The server starts by itself on first use of any verb. Stopping or restarting
it closes no terminal: sessions keep running in their holders and the next
server picks them up with their screens. \`status\` names the server's log,
which \`tend logs\` prints, and which service runs the server (\`tend service\`):
a service's server, once stopped, stays stopped until the next tend command
starts it through the service again.`,
  options: { ...jsonOption },
  operands: '[ACTION]',
  async run({ args, client, stdout }) {
    const [action = 'status'] = args.positionals;
    const json = args.values.json === true;
    const say = (text: string, value: unknown) => (json ? printJson(stdout, value) : stdout.write(`${text}\n`));
    switch (action) {
      case 'start': {
        const running = await client.isRunning();
        if (running) {
          say(`already running (pid ${running.pid})`, { running: true, pid: running.pid, started: false });
          return 0;
        }
        const pid = await client.startServer();
        say(`started (pid ${pid})`, { running: true, pid, started: true });
        return 0;
      }
      case 'stop': {
        const service = await runningService(client);
        const pid = await stop(client);
        // A service restarts its server on failure only: asked to stop, it stays stopped until something starts it.
        const serviceNote = service === null || !service.installed ? '' : `; ${service.name} (${service.kind}) ran it and leaves it stopped until the next tend command starts it through ${service.kind} again`;
        say(pid === null ? 'not running' : `stopped (pid ${pid}); sessions keep running${serviceNote}`, { running: false, stoppedPid: pid, service: service?.kind ?? null });
        return 0;
      }
      case 'restart': {
        const old = await stop(client);
        const pid = await client.startServer();
        say(`restarted (pid ${old ?? '-'} → ${pid})`, { running: true, pid, previousPid: old });
        return 0;
      }
      case 'status': {
        // The log is named either way: a server that will not start says why there.
        const log = client.paths.serverLog;
        const res = await client.isRunning();
        if (!res) {
          say(`not running (TEND_HOME ${client.paths.home})\nlog: ${log}`, { running: false, home: client.paths.home, log });
          return 1;
        }
        const h = (await client.raw<Record<string, unknown>>(API_ROUTES.health.method, API_ROUTES.health.path)).body;
        say(`running (pid ${h.pid}, version ${h.version} build ${h.build}, ${h.sessions} sessions, TEND_HOME ${h.home})\n${serviceLine(h.service, client.paths.home)}\nlog: ${log} (\`tend logs\` prints it)`, { running: true, ...h, log });
        return 0;
      }
      default:
        throw usageError(`no action "${action}"${nearestAction(action)}; server takes start, stop, restart or status`);
    }
  },
};
