// The history view's words: its first line (where the history starts, or
// that more can be loaded), its last (where the pane's own scrollback takes
// over), the toolbar's summary and the connection notice; and reading its
// terminal's rows back as text (for the debug hook).
import type { Terminal } from '@xterm/xterm';
import type { HistoryState } from '../terminal/history-loader.js';
import type { LinkStatus } from '../terminal/terminal-link.js';

const numberFormat = new Intl.NumberFormat('en');
export const n = (value: number) => numberFormat.format(value);

/**
 * The panel's first line. `gap`: the rows read do not reach the pane's own
 * top (it dropped rows since its snapshot that could not be joined), so "no
 * older rows" would be untrue (they are between, not above).
 */
export function historyHeader(state: Pick<HistoryState, 'oldest' | 'dropped' | 'rows'>, gap = false): string {
  if (state.oldest) {
    const dropped = `${n(state.dropped)} older ${state.dropped === 1 ? 'row was' : 'rows were'} dropped (server memory budget)`;
    if (state.rows === 0 && gap) return state.dropped > 0 ? `no rows older than this page's first sync are held: ${dropped}` : "no rows older than this page's first sync";
    if (state.rows === 0) return state.dropped > 0 ? `no older rows are held: ${dropped}` : 'no older rows';
    return state.dropped > 0 ? dropped : 'start of history';
  }
  return state.rows === 0 ? 'older rows: none loaded yet' : 'older rows are not loaded yet: Load older, or Home / scroll up at the top';
}

/** The panel's last line: where the pane's own scrollback takes over. */
export function historyFooter(gap: boolean): string {
  return gap
    ? "the pane's own scrollback continues below, but it has dropped its oldest rows since it was last synced: rows in between are not shown here (reload the page to read them)"
    : "the pane's own scrollback continues below";
}

export function historySummary(state: HistoryState, gap: boolean): string {
  if (state.loading) return state.rows === 0 ? 'loading…' : `${n(state.rows)} older rows · loading more…`;
  if (state.waiting) return 'waiting for the connection…';
  if (state.oldest && state.dropped > 0) return `${n(state.rows)} older rows held · ${n(state.dropped)} dropped`;
  if (state.oldest && gap) return `${n(state.rows)} rows older than this page's first sync`;
  if (state.oldest) return state.rows === 0 ? 'no older rows' : `all ${n(state.rows)} older rows`;
  return `${n(state.rows)} older rows`;
}

export function gapNotice(paneScrollbackRows: number): string {
  return `This pane has dropped its own oldest rows (it keeps the newest ${n(paneScrollbackRows)}) since it last synced with the server, and the rows in between could not be read from where it begins: they are not shown here. Reload the page to read the whole history.`;
}

export function connectionNotice(status: LinkStatus): string | null {
  switch (status) {
    case 'live':
      return null;
    case 'connecting':
    case 'reconnecting':
      return 'The connection to the server is down: reconnecting… The rows shown stay; older ones can be loaded once it is back.';
    case 'exited':
      return "This pane's channel is closed (the program ended): the server answers no more history requests on it. The rows shown stay; reload the page to read more.";
    case 'gone':
      return 'The server has no such session any more.';
  }
}

/**
 * The terminal's lines [from, to), wrapped rows joined (a range should start
 * on an unwrapped line), trailing blanks trimmed, empty lines at the end dropped.
 */
export function logicalLines(term: Terminal, from = 0, to = term.buffer.normal.length): string[] {
  const buffer = term.buffer.normal;
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const line = buffer.getLine(i);
    if (line === undefined) break;
    const continues = i + 1 < to && buffer.getLine(i + 1)?.isWrapped === true;
    const text = line.translateToString(!continues);
    if (line.isWrapped && out.length > 0) out[out.length - 1] += text;
    else out.push(text);
  }
  const trimmed = out.map((l) => l.replace(/ +$/, ''));
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
  return trimmed;
}

/** The first and the last logical line only (the header and the footer), without reading the rows between. */
export function headerAndFooter(term: Terminal): string[] {
  const buffer = term.buffer.normal;
  let firstEnd = 1;
  while (firstEnd < buffer.length && buffer.getLine(firstEnd)?.isWrapped === true) firstEnd++;
  let tailStart = Math.max(firstEnd, buffer.length - term.rows - 64);
  while (tailStart > firstEnd && buffer.getLine(tailStart)?.isWrapped === true) tailStart--;
  const tail = logicalLines(term, tailStart);
  return [...logicalLines(term, 0, firstEnd), ...tail.slice(-1)];
}
