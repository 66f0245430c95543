// Text of a screen for people and scripts (`tend screen`): plain or with SGR,
// trailing blanks trimmed, soft-wrapped rows optionally joined.
import type { IBufferLine, Terminal } from '@xterm/headless';
import { DEFAULT_ATTRS, sameAttrs, sgrOf } from './cell-style.js';
import { rawAttrsOf, type RawAttrs } from './xterm-private.js';

export interface TextOptions {
  /** Rows of scrollback above the screen (default 0). */
  scrollbackRows?: number;
  /** SGR colours and attributes, each line ending with a reset. */
  ansi?: boolean;
  /** A soft-wrapped row continues the line above instead of starting a new one. */
  joinWrapped?: boolean;
}

function ansiLine(terminal: Terminal, line: IBufferLine, trimRight: boolean): string {
  const cell = terminal.buffer.active.getNullCell();
  let end = terminal.cols;
  if (trimRight) {
    while (end > 0) {
      line.getCell(end - 1, cell);
      const chars = cell.getChars();
      if ((chars !== '' && chars !== ' ') || !sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) break;
      end--;
    }
  }
  let out = '';
  let pen: RawAttrs = DEFAULT_ATTRS;
  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue;
    const attrs = { ...rawAttrsOf(cell), urlId: 0 };
    if (!sameAttrs(attrs, pen)) {
      out += sgrOf(attrs);
      pen = attrs;
    }
    out += cell.getChars() || ' ';
  }
  return pen === DEFAULT_ATTRS ? out : out + '\x1b[0m';
}

export function screenText(terminal: Terminal, options: TextOptions = {}): string {
  const buffer = terminal.buffer.active;
  const start = Math.max(0, buffer.baseY - Math.max(0, options.scrollbackRows ?? 0));
  const end = buffer.baseY + terminal.rows;
  const lines: string[] = [];
  for (let i = start; i < end; i++) {
    const line = buffer.getLine(i);
    if (line === undefined) break;
    const next = buffer.getLine(i + 1);
    const continues = options.joinWrapped === true && i + 1 < end && next !== undefined && next.isWrapped;
    const text = options.ansi === true ? ansiLine(terminal, line, !continues) : continues ? line.translateToString(false) : line.translateToString(true).replace(/ +$/, '');
    if (options.joinWrapped === true && line.isWrapped && i > start && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}
