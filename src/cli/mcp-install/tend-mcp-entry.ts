// The entry tend writes in an agent's MCP configuration: this Node (its
// absolute path) running this checkout's bin/tend.js with `mcp`, so it works
// without `tend` on the agent's PATH, and the environment that makes the
// agent's `tend mcp` reach the tend that install ran with. tend owns the
// fields it writes in the entry named "tend" (command, args, the agent's
// type or timeout, and TEND_HOME and TEND_RUNTIME_DIR in its env); every
// other field there is the user's or the agent's own (Codex keeps a
// person's tool approvals in the server's table, Gemini its trust, and an
// env may carry TEND_MCP_MAX_CHARS), so install keeps them and status does
// not count them.
import { join, resolve } from 'node:path';
import type { AgentKind } from '../../protocol/api/agents.js';
import { findPackageRoot } from '../../common/package-root.js';
import { resolvePaths } from '../../common/paths.js';

/** The name of tend's server in every agent's configuration. */
export const MCP_SERVER_NAME = 'tend';
/**
 * Codex gives up on a tool call after tool_timeout_sec (60 s unless set):
 * tend's entry allows an hour, the longest wait `run` and `await_result`
 * are meant for (a longer one returns a pending handle first).
 */
export const CODEX_TOOL_TIMEOUT_SEC = 3600;
/** Gemini CLI's per-server timeout is in milliseconds (600 000 unless set): the same hour. */
export const GEMINI_TIMEOUT_MS = 3_600_000;

export interface TendLaunch {
  command: string;
  args: string[];
  /** Variables the agent must pass so its `tend mcp` reaches this tend; empty when the defaults do. */
  env: Record<string, string>;
}

export interface LaunchSource {
  env?: NodeJS.ProcessEnv;
  /** The checkout whose bin/tend.js runs. */
  packageRoot?: string;
  /** The Node that runs it. */
  node?: string;
}

export function tendLaunch(kind: AgentKind, source: LaunchSource = {}): TendLaunch {
  const env = source.env ?? process.env;
  const root = source.packageRoot ?? findPackageRoot();
  return { command: source.node ?? process.execPath, args: [join(root, 'bin', 'tend.js'), 'mcp'], env: launchEnv(kind, env) };
}

/**
 * TEND_HOME and TEND_RUNTIME_DIR when set (as absolute paths: the agent
 * starts tend in a directory of its own). Codex passes its servers only a
 * short list of variables (HOME, PATH, TMPDIR…), not XDG_RUNTIME_DIR, from
 * which tend finds its socket: without it Codex's `tend mcp` would look in
 * another runtime directory first (it then finds the running server through
 * TEND_HOME's lock, but a server it starts would keep its socket, hook spool
 * and holders' sockets apart from the user's), so for Codex the runtime
 * directory is written whenever XDG_RUNTIME_DIR decides it.
 */
function launchEnv(kind: AgentKind, env: NodeJS.ProcessEnv): Record<string, string> {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const out: Record<string, string> = {};
  if (set('TEND_HOME')) out.TEND_HOME = resolve(env.TEND_HOME!);
  if (set('TEND_RUNTIME_DIR')) out.TEND_RUNTIME_DIR = resolve(env.TEND_RUNTIME_DIR!);
  else if (kind === 'codex' && set('XDG_RUNTIME_DIR')) out.TEND_RUNTIME_DIR = resolvePaths(env).runtimeDir;
  return out;
}

/** The entry as each agent documents its fields. */
export function tendEntry(kind: AgentKind, launch: TendLaunch): Record<string, unknown> {
  const env = Object.keys(launch.env).length > 0 ? { env: launch.env } : {};
  switch (kind) {
    case 'claude':
      // As `claude mcp add` writes one: the type, and env even when empty.
      return { type: 'stdio', command: launch.command, args: launch.args, env: launch.env };
    case 'codex':
      return { command: launch.command, args: launch.args, tool_timeout_sec: CODEX_TOOL_TIMEOUT_SEC, ...env };
    case 'gemini':
      return { command: launch.command, args: launch.args, ...env, timeout: GEMINI_TIMEOUT_MS };
  }
}

/** The variables of an entry's env that tend writes (or takes out when unset); any other is the user's. */
export const TEND_ENV_KEYS: readonly string[] = ['TEND_HOME', 'TEND_RUNTIME_DIR'];

/**
 * The entry install leaves: the one found with tend's fields set as wanted
 * and its other fields as they were (in their places; a field tend adds
 * comes last). An env found keeps its other variables, and stays (empty,
 * maybe) once it is there; none is added when tend has nothing to put in it.
 */
export function mergedEntry(found: unknown, wanted: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(found)) return wanted;
  const out: Record<string, unknown> = { ...found };
  for (const [key, value] of Object.entries(wanted)) if (key !== 'env') out[key] = value;
  const wantedEnv = (wanted.env ?? {}) as Record<string, unknown>;
  if (isPlainObject(found.env)) {
    const env: Record<string, unknown> = { ...found.env };
    for (const key of TEND_ENV_KEYS) delete env[key];
    out.env = { ...env, ...wantedEnv };
  } else if ('env' in wanted) {
    out.env = wantedEnv;
  }
  return out;
}

/** The fields of an entry found that install would change (tend's own only), in order; none when it is installed. */
export function entryDifferences(found: unknown, wanted: Record<string, unknown>): string[] {
  if (!isPlainObject(found)) return ['(the whole entry)'];
  const merged = mergedEntry(found, wanted);
  return Object.keys(merged).filter((key) => !sameValue(found[key], merged[key]));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON-like equality: objects by their members in any order, arrays item by item. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => k in b && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** What an entry runs, as one line (command and args), for messages; null when it has no command. */
export function entryCommandLine(entry: unknown): string | null {
  if (entry === null || typeof entry !== 'object') return null;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  if (typeof command !== 'string') return null;
  const rest = Array.isArray(args) ? args.map((a) => String(a)) : [];
  return [command, ...rest].join(' ');
}
