// How the CLI shows sessions to a person.
import { describeExitShort } from '../protocol/exit-status.js';

export interface SessionView {
  index?: number;
  id: string;
  name: string | null;
  status: string;
  exitCode: number | null;
  exitSignal: number | null;
  pid: number | null;
  cwd: string;
  title: string;
  cols: number;
  rows: number;
  createdAt: number;
  lastOutputAt: number | null;
  viewers: number;
  degraded?: boolean;
  /** Set while the server cannot save the session's screen (a full or read-only disk). */
  warning?: string;
}

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

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? '')].length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd()).join('\n') + '\n';
}

export function sessionLabel(s: { id: string; name: string | null }): string {
  return s.name ? `:${s.name} (${s.id})` : s.id;
}
