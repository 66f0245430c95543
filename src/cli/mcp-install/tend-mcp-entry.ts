// The entry tend writes in an agent's MCP configuration: this Node (its
// absolute path) running this checkout's bin/tend.js with `mcp`, so it works
// without `tend` on the agent's PATH, and the environment that makes the
// agent's `tend mcp` reach the tend that install ran with. tend owns the
// entry named "tend": install writes it whole (fields added to it by hand
// are not kept), and status calls any other content stale.
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
 * which tend finds its socket: without it Codex's `tend mcp` would look for
 * the server elsewhere and start a second one on the same TEND_HOME, so for
 * Codex the runtime directory is written whenever XDG_RUNTIME_DIR decides it.
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

/** The fields of an entry found that differ from the wanted one (missing, extra or other), in order. */
export function entryDifferences(found: unknown, wanted: Record<string, unknown>): string[] {
  if (found === null || typeof found !== 'object' || Array.isArray(found)) return ['(the whole entry)'];
  const have = found as Record<string, unknown>;
  const keys = [...Object.keys(wanted), ...Object.keys(have).filter((k) => !(k in wanted))];
  return keys.filter((k) => !sameValue(have[k], wanted[k]));
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
