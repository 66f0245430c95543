// How the CLI shows sessions to a person.
import { describeExitShort } from '../protocol/exit-status.js';
import type { AgentInfo, SessionInfo } from '../protocol/api/index.js';
import { oneLineCommand } from '../common/command-line.js';

/** A session as the API shows it, with its `tend ls` index when listed. */
export type SessionView = SessionInfo & { index?: number };

export function ago(ms: number | null, now = Date.now()): string {
  if (ms === null) return '-';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function statusText(s: SessionView): string {
  if (s.status === 'exited') return describeExitShort({ code: s.exitCode, signal: s.exitSignal });
  return s.degraded ? `${s.status}, incomplete` : s.status;
}

/**
 * Rows as columns two spaces apart. `decorate` may wrap a cell's text in
 * escape sequences (a colour): they take no room on screen, so the padding
 * is counted from the text alone.
 */
export function table(rows: string[][], decorate?: (row: number, column: number, cell: string) => string): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? '')].length)));
  return rows.map((r, n) => r.map((cell, c) => {
    const shown = decorate === undefined ? cell : decorate(n, c, cell);
    return c === r.length - 1 ? shown : shown + ' '.repeat(widths[c]! - [...cell].length);
  }).join('  ').trimEnd()).join('\n') + '\n';
}

/** Bold yellow: an agent that waits for a person, seen among the rest. */
const WANTS_PERSON_STYLE = ['\x1b[1;33m', '\x1b[0m'] as const;

/** Whether to colour what is written to `out`: a terminal, and NO_COLOR (no-color.org) not set. */
export function colourFor(out: { isTTY?: boolean }): boolean {
  return out.isTTY === true && !process.env.NO_COLOR;
}

/** A cell that says an agent waits for a person, made to stand out. */
export function wantsPersonCell(cell: string): string {
  return `${WANTS_PERSON_STYLE[0]}${cell}${WANTS_PERSON_STYLE[1]}`;
}

/** An agent as `tend ls` and the attach's session list show it: "claude idle", "codex needs-permission". */
export function agentText(agent: Pick<AgentInfo, 'kind' | 'state'> | null | undefined): string {
  return agent ? `${agent.kind} ${agent.state}` : '-';
}

export function sessionLabel(s: { id: string; name: string | null }): string {
  return s.name ? `:${s.name} (${s.id})` : s.id;
}

/** Words as one line a shell would split back into the same words. */
export { shellLine } from '../common/command-line.js';

/**
 * What a session runs, as one line a person reads: the program's name (not
 * its whole path) and its arguments as they would be typed, on one line (a
 * table row stays one row); one formatter with the dashboard's
 * (common/command-line.ts).
 */
export function commandText(argv: readonly string[]): string {
  return oneLineCommand(argv) || '-';
}

export { shorten } from '../common/command-line.js';
