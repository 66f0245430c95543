// A real tend server for the control-plane tests: its own homes, the
// 127.0.0.1 listener on a free port, and shells with an empty HOME so the
// user's rc files play no part. Sessions are started through the CLI.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { startTestServer, waitFor, type TestServer } from '../server/harness.js';
import type { CommandRecord } from '../../src/protocol/api/index.js';

export const CONTROL_TEST_TIMEOUT_MS = 180_000;
/** bash keeps this prompt: the injected rc reads only ~/.bashrc, and this HOME has none. */
export const BASH_PROMPT = 'tend-ready$ ';

export function findShell(name: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path.startsWith('/') ? path : null;
}

export interface ControlServer extends TestServer {
  shellHome: string;
  /** Starts a session (argv after `--`), waits for a prompt on its screen, returns its id. */
  newShell(argv: string[], opts?: { name?: string; size?: string; prompt?: RegExp }): Promise<string>;
  screen(target: string): Promise<string>;
  /**
   * One API call on its own connection. Calls that wait (await) must not use
   * Node's global agent: it drops sockets that idled for 5 s, counting time
   * spent in its pool, so a waiting call can fail after less than that.
   */
  longCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** Runs fn with a started control server, disposed afterwards whatever fn does. */
export async function withServer(fn: (s: ControlServer) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const s = startControlServer(env);
  try {
    await fn(s);
  } finally {
    await s.dispose();
  }
}

/** A row of `tend commands --json`: the API's command record. */
export type CommandRow = CommandRecord;

/** The session's commands as `tend commands --json` lists them. */
export async function commandsOf(s: ControlServer, target: string): Promise<CommandRow[]> {
  const r = await s.cli(['commands', target, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as CommandRow[];
}

export function startControlServer(extraEnv: Record<string, string> = {}): ControlServer {
  const shellHome = mkdtempSync(join(tmpdir(), 'tend-ctl-home-'));
  writeFileSync(join(shellHome, '.zshrc'), '');
  const server = startTestServer({
    TEND_PORT: '0',
    HOME: shellHome,
    PS1: BASH_PROMPT,
    TERM: 'xterm-256color',
    XDG_CONFIG_HOME: join(shellHome, '.config'),
    XDG_DATA_HOME: join(shellHome, '.local', 'share'),
    ...extraEnv,
  });
  const screen = async (target: string) => {
    const r = await server.cli(['screen', target]);
    return r.code === 0 ? r.stdout : '';
  };
  return {
    ...server,
    shellHome,
    screen,
    longCall: (method, path, body) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = request({ socketPath: server.client.paths.serverSocket, method, path, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.setEncoding('utf8'); // a character split across chunks stays whole
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
        });
        req.on('error', reject);
        req.end(payload);
      }),
    async newShell(argv, opts = {}) {
      const args = ['new', '--json', '--size', opts.size ?? '100x30'];
      if (opts.name) args.push('--name', opts.name);
      const r = await server.cli([...args, '--', ...argv]);
      assert.equal(r.code, 0, r.stderr);
      const id = (JSON.parse(r.stdout) as { id: string }).id;
      await server.holderPids();
      const prompt = opts.prompt ?? /[$#>%] ?$/m;
      await waitFor(`a prompt in ${argv.join(' ')}`, async () => prompt.test(await screen(id)), 60_000);
      return id;
    },
    async dispose() {
      await server.dispose();
      const { rmSync } = await import('node:fs');
      rmSync(shellHome, { recursive: true, force: true });
    },
  };
}
