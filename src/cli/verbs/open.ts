import { spawn } from 'node:child_process';
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';

interface Health {
  port: number | null;
}

/** Opens a URL with the desktop's opener, if there is one; never waits for it. */
function openInBrowser(url: string): boolean {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export const openVerb: Verb = {
  name: 'open',
  summary: 'open the browser app',
  usage: `tend open [TARGET] [--print] [--json]

Opens the browser app (served by the tend server on 127.0.0.1) at the
dashboard, or at TARGET's workspace. Prints the address too.

  -p, --print   only print the address
  -j, --json    print { url } as JSON`,
  options: { ...jsonOption, print: { type: 'boolean', short: 'p' } },
  async run({ args, client, stdout }) {
    const health = await client.call<Health>('GET', '/v1/health');
    if (health.port === null) {
      throw new CliError('the server has no 127.0.0.1 listener (its port was taken?); see TEND_PORT and the server log');
    }
    const [target] = args.positionals;
    let path = '/';
    if (target !== undefined) {
      const s = await client.call<{ id: string; name: string | null }>('GET', `/v1/sessions/${encodeURIComponent(target)}`);
      path = `/w/${encodeURIComponent(s.name ?? s.id)}`;
    }
    const url = `http://127.0.0.1:${health.port}${path}`;
    if (args.values.json) printJson(stdout, { url });
    else stdout.write(`${url}\n`);
    if (!args.values.print && !args.values.json) openInBrowser(url);
    return 0;
  },
};
