// A real tend server for a test: its own TEND_HOME and runtime dir, driven
// through the real CLI and the real API socket, and torn down by PID — the
// server and every holder it started — whatever the test did.
import { mkdtempSync, rmSync, readFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { TendClient, type ApiResponse } from '../../src/cli/client.js';
import { readableByAnotherUser } from '../support/as-another-user.js';
import { killQuietly, pidsWithEnv } from '../support/processes.js';

export const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const tendBin = join(repoRoot, 'bin', 'tend.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node BIN ARGS` with exactly this environment: stdin is `input` (none when absent), killed after timeoutMs. */
function runCli(
  bin: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; input?: string; as?: { uid: number; gid: number; cwd: string } | undefined },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const stdin = opts.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(process.execPath, [bin, ...args], { env: opts.env, stdio: [stdin, 'pipe', 'pipe'], ...opts.as });
    let stdout = '';
    let stderr = '';
    // setEncoding: a character split across chunks stays whole.
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tend ${args.join(' ')} did not finish in time; stderr: ${stderr}`));
    }, opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** `tend ARGS` of the tree at root (this one, or a copy saying another build) with exactly this environment. */
export function cliOf(root: string, env: NodeJS.ProcessEnv, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return runCli(join(root, 'bin', 'tend.js'), args, { env, timeoutMs });
}

/**
 * The real CLI with exactly this environment (the harness's `cli` always has
 * the test's own runtime directory): for a verb started as another shell,
 * service or agent would start it.
 */
export function cliWith(env: NodeJS.ProcessEnv, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return cliOf(repoRoot, env, args, timeoutMs);
}

export interface TestServer {
  home: string;
  env: NodeJS.ProcessEnv;
  client: TendClient;
  cli(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<CliResult>;
  api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  serverPid(): number | null;
  /** Holder pids recorded for every session, live or not. */
  holderPids(): Promise<number[]>;
  dispose(): Promise<void>;
}

export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000, intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface TestServerOptions {
  /** Run the CLI (and so the server and holders) as this user; needs root. */
  asUser?: { uid: number; gid: number };
}

export function startTestServer(extraEnv: Record<string, string> = {}, options: TestServerOptions = {}): TestServer {
  const home = mkdtempSync(join(tmpdir(), 'tend-test-'));
  const runtime = mkdtempSync(join(tmpdir(), 'tend-rt-'));
  if (options.asUser) {
    for (const dir of [home, runtime]) chownSync(dir, options.asUser.uid, options.asUser.gid);
  }
  // TEND_PORT=0: tests run side by side, each on a free loopback port.
  const env: NodeJS.ProcessEnv = { ...process.env, TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0', ...extraEnv };
  delete env.TMUX;
  if (options.asUser) env.HOME = home;
  const client = new TendClient(env);
  const seenHolders = new Set<number>();

  // Another user runs tend from a copy it can read, in a directory it may enter:
  // the checkout may be in a home directory closed to it.
  const asUser = options.asUser ? { ...options.asUser, cwd: home } : undefined;
  const bin = options.asUser ? readableByAnotherUser(tendBin) : tendBin;
  const cli = (args: string[], opts: { input?: string; timeoutMs?: number } = {}) =>
    runCli(bin, args, { env, timeoutMs: opts.timeoutMs ?? 60_000, input: opts.input ?? '', as: asUser });

  const serverPid = () => {
    let text: string;
    try {
      text = readFileSync(client.paths.lockFile, 'utf8');
    } catch {
      // No server, or one stopping this moment: it removes its pid file as it exits.
      return null;
    }
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
  };

  const holderPids = async () => {
    try {
      const res = await client.raw<Array<{ holderPid: number | null }>>('GET', '/v1/sessions');
      if (res.status === 200) for (const s of res.body) if (s.holderPid) seenHolders.add(s.holderPid);
    } catch {
      /* no server right now */
    }
    return [...seenHolders];
  };

  return {
    home,
    env,
    client,
    cli,
    api: (method, path, body) => client.raw(method, path, body),
    serverPid,
    holderPids,
    async dispose() {
      await holderPids();
      const pid = serverPid();
      if (pid) process.kill(pid, 'SIGKILL');
      for (const h of seenHolders) {
        try {
          process.kill(h, 'SIGTERM'); // the holder ends its child's process group, then itself
        } catch {
          /* gone */
        }
      }
      await waitFor('holders to exit', () => [...seenHolders].every((h) => !isAlive(h)), 10_000).catch(() => {
        for (const h of seenHolders) if (isAlive(h)) process.kill(h, 'SIGKILL');
      });
      // What the server no longer listed (it was stopped, or killed) and what
      // left the holders' process groups (an agent under job control): every
      // process started with this test's TEND_HOME, by PID.
      for (const pid of pidsWithEnv('TEND_HOME', home)) killQuietly(pid, 'SIGKILL');
      rmSync(home, { recursive: true, force: true });
      rmSync(runtime, { recursive: true, force: true });
    },
  };
}

/** SIGKILLs the test server (a crash: holders live on) and starts another with `tend server start`. */
export async function killAndRestart(t: TestServer): Promise<void> {
  const pid = t.serverPid();
  if (pid === null) throw new Error('no server is running to kill');
  process.kill(pid, 'SIGKILL');
  await waitFor('server gone', () => !isAlive(pid));
  const started = await t.cli(['server', 'start']);
  if (started.code !== 0) throw new Error(`tend server start failed: ${started.stderr}`);
}
