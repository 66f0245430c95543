// window.__tendDebug: what the page's terminals hold, for the browser tests
// and the benchmarks (they compare it with the server's screen). Read-only
// views of live objects; nothing here changes what the page does.
import type { Terminal } from '@xterm/xterm';
import type { TerminalLink } from './terminal/terminal-link.js';
import type { ViewerSocket } from './connection/viewer-socket.js';
import type { DebugHistoryView } from './debug-views.js';

export type { DebugHistoryView };

export interface DebugPane {
  sessionId: string;
  terminal: Terminal;
  link: TerminalLink;
  renderer: () => 'webgl' | 'dom';
}

/** A dashboard card's preview (terminal/session-preview.ts), while it is subscribed. */
export interface DebugPreview {
  sessionId: string;
  terminal: Terminal;
  link: TerminalLink;
  /** The text the card shows now (redrawn a few times a second). */
  shownText(): string;
}

/** A pane's open history view (components/HistoryPanel.tsx). */
export interface DebugHistory {
  sessionId: string;
  /** withRows: also the rows (all of them: costly for tens of thousands). */
  view(withRows: boolean): DebugHistoryView;
}

const panes = new Set<DebugPane>();
const histories = new Set<DebugHistory>();
const previews = new Set<DebugPreview>();
const problems: string[] = [];
let socket: ViewerSocket | null = null;

export function registerDebugSocket(s: ViewerSocket): void {
  socket = s;
}

export function registerDebugPane(pane: DebugPane): () => void {
  panes.add(pane);
  return () => panes.delete(pane);
}

export function registerDebugPreview(preview: DebugPreview): () => void {
  previews.add(preview);
  return () => previews.delete(preview);
}

export function registerDebugHistory(history: DebugHistory): () => void {
  histories.add(history);
  return () => histories.delete(history);
}

export function reportProblem(message: string): void {
  problems.push(message);
  console.warn(`tend: ${message}`);
}

/** The terminal's text the way the server's `screen` route gives it: trailing blanks trimmed, empty last rows dropped. */
function bufferText(term: Terminal, scrollbackRows: number): string {
  const buffer = term.buffer.active;
  const start = Math.max(0, buffer.baseY - Math.max(0, scrollbackRows));
  const end = buffer.baseY + term.rows;
  const lines: string[] = [];
  for (let i = start; i < end; i++) {
    const line = buffer.getLine(i);
    if (line === undefined) break;
    lines.push(line.translateToString(true).replace(/ +$/, ''));
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

function find(sessionId: string): DebugPane | undefined {
  for (const p of panes) if (p.sessionId === sessionId) return p;
  return undefined;
}

const debug = {
  panes: () =>
    [...panes].map((p) => ({
      sessionId: p.sessionId,
      status: p.link.status,
      cols: p.terminal.cols,
      rows: p.terminal.rows,
      parsedSeq: p.link.parsedSeq,
      ackedSeq: p.link.ackedSeq,
      written: p.link.writtenPoint,
      renderer: p.renderer(),
      stats: { ...p.link.stats },
      problems: [...p.link.problems],
      scrollbackLength: p.terminal.buffer.active.baseY,
      viewportY: p.terminal.buffer.active.viewportY,
      trimmedSinceSnapshot: p.link.trimmedSinceSnapshot,
    })),
  text: (sessionId: string, scrollbackRows = 0): string | null => {
    const p = find(sessionId);
    return p ? bufferText(p.terminal, scrollbackRows) : null;
  },
  /** The session's open history view, or null when none is open. */
  history: (sessionId: string, withRows = false): DebugHistoryView | null => {
    for (const h of histories) if (h.sessionId === sessionId) return h.view(withRows);
    return null;
  },
  /** The dashboard's subscribed previews: their session, link status and screen text. */
  previews: () =>
    [...previews].map((p) => ({ sessionId: p.sessionId, status: p.link.status, cols: p.terminal.cols, rows: p.terminal.rows, text: bufferText(p.terminal, 0), shown: p.shownText() })),
  socket: () => (socket ? { state: socket.state, boot: socket.serverBoot, stats: { ...socket.stats } } : null),
  problems: () => [...problems],
};

declare global {
  interface Window {
    __tendDebug?: typeof debug;
  }
}

window.__tendDebug = debug;
