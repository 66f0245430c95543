// Running a hook command as an agent does: a fresh process, the payload
// written to its stdin and stdin closed, its stdout, stderr, exit status and
// time taken kept. Whether the writer met a closed pipe is kept too: an
// agent writing a large payload must never see EPIPE.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../server/harness.js';
import { defaultHookClientPath } from '../../src/common/agents/hook-client-path.js';

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit. */
  ms: number;
  /** The error writing the payload met (EPIPE when the hook stopped reading), or null. */
  writeError: string | null;
}

/** Far above any hook's own bounds (2 s for stdin, 300 ms for the server): a hook still running then is hung. */
const HANG_GUARD_MS = 30_000;

/** The native client `npm install` builds (or $TEND_HOOK_CLIENT, as for the portable build). */
export const hookClient = defaultHookClientPath();
export const tendBin = join(repoRoot, 'bin', 'tend.js');

export interface HookRunOptions {
  /** Write the payload but never close stdin, as a hook run by hand at a terminal would see it. */
  keepStdinOpen?: boolean;
}

export function runHook(argv: readonly string[], env: NodeJS.ProcessEnv, payload: string | Buffer, options: HookRunOptions = {}): Promise<HookRun> {
  const [cmd, ...args] = argv;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd!, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let writeError: string | null = null;
    let exitedAt = 0;
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', (err: NodeJS.ErrnoException) => (writeError = err.code ?? err.message));
    child.once('exit', () => (exitedAt = performance.now()));
    child.once('error', (err) => {
      clearTimeout(guard);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr, ms: (exitedAt || performance.now()) - started, writeError });
    });
    if (options.keepStdinOpen) child.stdin.write(payload);
    else child.stdin.end(payload);
  });
}

/** The environment a hook sees inside a tend session: the session's id and the server's socket. */
export function hookEnv(session: string | undefined, socket: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TEND_SESSION;
  delete env.TEND_SOCKET;
  delete env.CLAUDE_CODE_SESSION_ID;
  delete env.GEMINI_SESSION_ID;
  if (session !== undefined) env.TEND_SESSION = session;
  if (socket !== undefined) env.TEND_SOCKET = socket;
  return env;
}

/** A Claude Code SessionStart payload, with the fields the real one has. */
export function sessionStartPayload(conversationId: string, cwd: string): string {
  return JSON.stringify({
    session_id: conversationId,
    transcript_path: join(cwd, '.claude', 'projects', 'p', `${conversationId}.jsonl`),
    cwd,
    hook_event_name: 'SessionStart',
    source: 'startup',
  });
}
