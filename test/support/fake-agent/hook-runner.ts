// Running hook handlers the way the agents do: `sh -c COMMAND` in the agent's
// cwd with the agent's environment, the payload JSON on stdin, every matching
// handler at once, an identical handler once; the agent waits for them all
// (each bounded by its timeout) before it goes on, which is why a slow hook
// slows every turn.
import { spawn } from 'node:child_process';
import type { HookHandler } from './hook-settings.js';

export interface HookRun {
  command: string;
  /** null when it was killed (its timeout passed) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface HookContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** What a handler may print that the agent keeps; the rest is read and dropped. */
const KEPT_OUTPUT_CHARS = 64 * 1024;

/**
 * The handlers for `event` whose matcher takes `subject` (a tool name, a
 * SessionStart source, a notification type…; null for events that have no
 * matcher, which run every group). "*", "" and no matcher take everything; any
 * other matcher is a regular expression over the whole subject.
 */
export function matchingHandlers(handlers: readonly HookHandler[], event: string, subject: string | null): HookHandler[] {
  const seen = new Set<string>();
  return handlers.filter((h) => {
    if (h.event !== event || !matcherTakes(h.matcher, subject) || seen.has(h.identity)) return false;
    seen.add(h.identity);
    return true;
  });
}

function matcherTakes(matcher: string | null, subject: string | null): boolean {
  if (matcher === null || matcher === '' || matcher === '*' || subject === null) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(subject);
  } catch {
    return matcher === subject;
  }
}

export function runHooks(handlers: readonly HookHandler[], payload: unknown, ctx: HookContext): Promise<HookRun[]> {
  const input = JSON.stringify(payload);
  return Promise.all(handlers.map((h) => runHandler(h, input, ctx)));
}

function runHandler(handler: HookHandler, input: string, ctx: HookContext): Promise<HookRun> {
  return new Promise((resolve) => {
    const run: HookRun = { command: handler.command, exitCode: null, stdout: '', stderr: '', timedOut: false };
    // Its own process group, so a timeout ends whatever the command started too.
    const child = spawn('sh', ['-c', handler.command], { cwd: ctx.cwd, env: ctx.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const timer = setTimeout(() => {
      run.timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }, handler.timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (run.stdout = (run.stdout + c).slice(0, KEPT_OUTPUT_CHARS)));
    child.stderr.on('data', (c: string) => (run.stderr = (run.stderr + c).slice(0, KEPT_OUTPUT_CHARS)));
    // A handler that never reads its stdin must not fail the agent (EPIPE).
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', (err) => {
      run.stderr += err.message;
    });
    // 'close', not 'exit': the agent waits for the handler's output to end, as Node's own exec does.
    child.on('close', (code) => {
      clearTimeout(timer);
      run.exitCode = run.timedOut ? null : code;
      resolve(run);
    });
  });
}

/**
 * Starts the handlers and returns once each has its whole payload, not
 * waiting for them to finish: Gemini's SessionEnd, which the CLI does not wait for.
 */
export function startHooks(handlers: readonly HookHandler[], payload: unknown, ctx: HookContext): Promise<void> {
  const input = JSON.stringify(payload);
  return Promise.all(
    handlers.map(
      (h) =>
        new Promise<void>((resolve) => {
          const child = spawn('sh', ['-c', h.command], { cwd: ctx.cwd, env: ctx.env, stdio: ['pipe', 'ignore', 'ignore'], detached: true });
          child.on('error', () => resolve());
          child.stdin.on('error', () => resolve());
          child.stdin.end(input, () => resolve());
          child.unref();
        }),
    ),
  ).then(() => undefined);
}
