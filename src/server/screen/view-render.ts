// A session's screen as a terminal of another size shows it, the way tmux
// shows a window to a client of another size: a viewer smaller than the
// session sees a window of it that keeps the cursor in view (cropped), a
// larger one sees it whole with the rest filled with dots (padded). Rows
// wider than the viewer's terminal would wrap over each other there; this is
// what `tend attach` paints instead (a VIEW snapshot), repainted as the
// screen changes.
//
// The paint goes in place and never scrolls: each row is addressed (CUP),
// written from the session's cells with their full SGR (cell-style.ts) and
// OSC 8 link, and the cursor put where it stands in the window. A wide
// character cut by the window's edge becomes a blank with its look, as in
// tmux. The outer terminal is expected at the default pen and charsets, with
// no scroll region and origin mode off (outer-modes.ts paintView sets that).
import type { IBufferCell, Terminal } from '@xterm/headless';
import { DEFAULT_ATTRS, oscLinkOf, sameAttrs, sgrOf } from './cell-style.js';
import { linkOf, rawAttrsOf, type RawAttrs } from './xterm-private.js';

const CSI = '\x1b[';
/** What fills the part of a larger viewer the session does not cover (tmux fills it with dots too). */
export const VIEW_PAD_CHAR = '.';

export interface ViewSize {
  cols: number;
  rows: number;
}

export interface RenderedView {
  /** Paints the whole window in place, ends with the default pen and the cursor placed. */
  data: string;
  /** The cursor in the window's coordinates. */
  cursorX: number;
  cursorY: number;
  /** The session's cell shown at the window's top-left. */
  offsetX: number;
  offsetY: number;
  /** The session's size the window was cut from. */
  screenCols: number;
  screenRows: number;
}

/**
 * Where a window of `view` cells starts on a screen of `screen` cells so the
 * cursor at `cursor` stays in it: at 0 while the cursor fits from there, at
 * the far end when it is near it, else the cursor centred (tmux's rule, so
 * a prompt at the bottom shows the bottom rows).
 */
export function viewOffset(cursor: number, screen: number, view: number): number {
  if (screen <= view || cursor < view) return 0;
  if (cursor > screen - view) return screen - view;
  return cursor - Math.floor(view / 2);
}

class ViewPainter {
  readonly out: string[] = [];
  private pen: RawAttrs = DEFAULT_ATTRS;
  private link = 0;

  constructor(private readonly terminal: Terminal) {}

  setPen(attrs: RawAttrs): void {
    if (!sameAttrs({ ...attrs, urlId: this.pen.urlId }, this.pen)) this.out.push(sgrOf(attrs));
    if (attrs.urlId !== this.link) {
      this.out.push(oscLinkOf(linkOf(this.terminal, attrs.urlId)));
      this.link = attrs.urlId;
    }
    this.pen = attrs;
  }

  defaultPen(): void {
    if (this.link !== 0) this.out.push(oscLinkOf(undefined));
    this.link = 0;
    if (!sameAttrs(this.pen, DEFAULT_ATTRS)) this.out.push(`${CSI}0m`);
    this.pen = DEFAULT_ATTRS;
  }
}

/** The active buffer's visible screen as a `view.cols` × `view.rows` terminal shows it. */
export function renderView(terminal: Terminal, view: ViewSize): RenderedView {
  const buffer = terminal.buffer.active;
  const cursorX = Math.min(buffer.cursorX, terminal.cols - 1);
  const cursorY = buffer.cursorY;
  const offsetX = viewOffset(cursorX, terminal.cols, view.cols);
  const offsetY = viewOffset(cursorY, terminal.rows, view.rows);
  const shownCols = Math.min(view.cols, terminal.cols - offsetX);
  const shownRows = Math.min(view.rows, terminal.rows - offsetY);
  const painter = new ViewPainter(terminal);
  const cell: IBufferCell = buffer.getNullCell();
  const pad = view.cols > shownCols ? VIEW_PAD_CHAR.repeat(view.cols - shownCols) : '';
  for (let y = 0; y < view.rows; y++) {
    painter.out.push(`${CSI}${y + 1};1H`);
    if (y >= shownRows) {
      painter.defaultPen();
      painter.out.push(VIEW_PAD_CHAR.repeat(view.cols));
      continue;
    }
    const line = buffer.getLine(buffer.baseY + offsetY + y);
    // Blanks of the default look at the row's end are erased (EL) rather than written, when nothing pads after them.
    let end = line === undefined ? 0 : shownCols;
    if (pad === '' && line !== undefined) {
      while (end > 0) {
        line.getCell(offsetX + end - 1, cell);
        if (cell.getChars() !== '' || cell.getWidth() !== 1 || !sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) break;
        end--;
      }
    }
    for (let x = 0; x < end; x++) {
      line!.getCell(offsetX + x, cell);
      const width = cell.getWidth();
      painter.setPen(rawAttrsOf(cell));
      if (width === 0) {
        // The right half of a wide character: written with it, unless the window cut its left half off.
        if (x === 0) painter.out.push(' ');
        continue;
      }
      const chars = cell.getChars();
      if (chars === '' || (width === 2 && x + 1 >= shownCols)) painter.out.push(' '); // a blank, or a wide character the edge cuts
      else painter.out.push(chars);
    }
    painter.defaultPen();
    if (end < shownCols) painter.out.push(`${CSI}K`);
    painter.out.push(pad);
  }
  painter.defaultPen();
  const viewX = cursorX - offsetX;
  const viewY = cursorY - offsetY;
  painter.out.push(`${CSI}${viewY + 1};${viewX + 1}H`);
  return { data: painter.out.join(''), cursorX: viewX, cursorY: viewY, offsetX, offsetY, screenCols: terminal.cols, screenRows: terminal.rows };
}
