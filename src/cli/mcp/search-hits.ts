// The hits of a search as the MCP `search` tool answers them: one flat list
// (session, row, line), each session's oldest first, bounded. When they do
// not fit, the oldest hits go first, taken from whichever session has the
// most shown, so every session that matched keeps its newest hits; a very
// long line is shown around its match.
import type { SessionSearchHits } from '../../protocol/api/index.js';
import { isLowSurrogate } from './bounded-text.js';

/** A line longer than this is shown around its first match: a minified file must not fill the answer. */
export const MAX_HIT_LINE_CHARS = 400;
/** Characters a hit costs in the answer besides its line (its JSON keys, the session id and name). */
const HIT_OVERHEAD_CHARS = 60;

export interface SearchHit {
  session: string;
  name: string | null;
  row: number;
  line: string;
}

export interface HitsPerSession {
  session: string;
  name: string | null;
  /** Matching lines in the session, all told. */
  total: number;
  /** Of them, the hits in this answer. */
  shown: number;
}

export interface BoundedHits {
  hits: SearchHit[];
  per_session: HitsPerSession[];
  /** Matching lines not in this answer: beyond each session's `max`, or dropped to fit. */
  omitted: number;
}

/** Where the first match is in `line`: found again here only to choose which part of a long line to show. */
export type MatchFinder = (line: string) => number;

/** A finder for what the server searched for: the text, or the regular expression, with its case rule. */
export function matchFinder(pattern: string, options: { regex: boolean; ignoreCase: boolean }): MatchFinder {
  if (options.regex) {
    const re = new RegExp(pattern, options.ignoreCase ? 'iu' : 'u');
    return (line) => line.search(re);
  }
  if (options.ignoreCase) {
    const lower = pattern.toLowerCase();
    return (line) => line.toLowerCase().indexOf(lower);
  }
  return (line) => line.indexOf(pattern);
}

/** A line cut to MAX_HIT_LINE_CHARS around its match, "…" where it was cut. */
export function lineAroundMatch(line: string, at: number): string {
  if (line.length <= MAX_HIT_LINE_CHARS) return line;
  const room = MAX_HIT_LINE_CHARS - 2;
  let start = Math.max(0, Math.min(Math.max(0, at) - Math.floor(room / 4), line.length - room));
  let end = Math.min(line.length, start + room);
  // Never half of a character that takes two UTF-16 units at either cut.
  if (start > 0 && isLowSurrogate(line.charCodeAt(start))) start++;
  if (end < line.length && isLowSurrogate(line.charCodeAt(end))) end--;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

const hitChars = (hit: SearchHit): number => hit.line.length + hit.session.length + (hit.name?.length ?? 0) + HIT_OVERHEAD_CHARS;

/** The sessions' hits as one list within `maxChars`, the oldest dropped first from the session that has the most. */
export function boundHits(sessions: readonly SessionSearchHits[], find: MatchFinder, maxChars: number): BoundedHits {
  const kept = sessions.map((s) => s.matches.map((m): SearchHit => ({ session: s.id, name: s.name, row: m.row, line: lineAroundMatch(m.line, find(m.line)) })));
  let chars = kept.reduce((n, hits) => n + hits.reduce((m, h) => m + hitChars(h), 0), 0);
  const dropFrom = kept.map(() => 0);
  while (chars > maxChars) {
    let most = -1;
    for (let i = 0; i < kept.length; i++) {
      const left = kept[i]!.length - dropFrom[i]!;
      if (left > 0 && (most === -1 || left > kept[most]!.length - dropFrom[most]!)) most = i;
    }
    if (most === -1) break;
    chars -= hitChars(kept[most]![dropFrom[most]!]!);
    dropFrom[most]!++;
  }
  const shown = kept.map((hits, i) => hits.slice(dropFrom[i]));
  const per_session = sessions.map((s, i) => ({ session: s.id, name: s.name, total: s.total, shown: shown[i]!.length }));
  const hits = shown.flat();
  const total = sessions.reduce((n, s) => n + s.total, 0);
  return { hits, per_session, omitted: total - hits.length };
}
