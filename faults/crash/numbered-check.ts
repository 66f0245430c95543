// Output exactly once, read off a screen: a session printing `n00000001`,
// `n00000002`, … must show, in its scrollback and screen, numbers that follow
// one another with no gap (lines lost) and no repeat (lines doubled).

import type { FaultServer } from '../lib/fault-server.js';

/** `n` + 8 digits + CR LF. */
export const NUMBERED_LINE_BYTES = 11;
const LINE = /^n(\d{8})$/;

export interface LineCount {
  lines: number;
  lostLines: number;
  doubledLines: number;
  firstProblem: string | null;
}

/** Counts gaps and repeats among the numbered lines a screen text shows. */
export function countNumberedLines(text: string): LineCount {
  const numbers: number[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line.trimEnd());
    if (m) numbers.push(Number(m[1]));
  }
  const count: LineCount = { lines: numbers.length, lostLines: 0, doubledLines: 0, firstProblem: null };
  for (let i = 1; i < numbers.length; i++) {
    const prev = numbers[i - 1]!;
    const cur = numbers[i]!;
    if (cur === prev + 1) continue;
    if (cur > prev + 1) count.lostLines += cur - prev - 1;
    else count.doubledLines += prev - cur + 1;
    count.firstProblem ??= `line n${String(cur).padStart(8, '0')} follows n${String(prev).padStart(8, '0')}`;
  }
  return count;
}

export async function checkNumberedSession(server: FaultServer, sessionId: string, scrollbackRows: number): Promise<LineCount> {
  const screen = await server.api<{ text: string }>('GET', `/v1/sessions/${sessionId}/screen?format=text&scrollback=${scrollbackRows}`);
  return countNumberedLines(screen.text);
}
