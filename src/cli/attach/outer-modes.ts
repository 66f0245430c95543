// What `tend attach` writes to the terminal it runs in (the outer terminal)
// besides the session's own bytes: the repaint that applies a snapshot, the
// input modes it re-asserts after one, and what it writes on leaving so the
// user's shell gets a sane terminal back. None of it queries the terminal
// (no DA, no DSR): inside tmux or over a slow ssh link an unanswered query
// would hang the attach.
import type { ScreenModes } from '../../protocol/viewer-frames.js';
import { inputModesOn } from '../../protocol/input-modes.js';

const CSI = '\x1b[';

/** Every mouse reporting mode and encoding a program may have turned on, turned off. */
const MOUSE_OFF = `${CSI}?1003l${CSI}?1002l${CSI}?1000l${CSI}?9l${CSI}?1016l${CSI}?1015l${CSI}?1006l${CSI}?1005l`;

/** The input modes a dead or detached session may have left on, all off, and the cursor visible. */
export const INPUT_MODES_OFF =
  `${MOUSE_OFF}${CSI}?2004l${CSI}?1004l${CSI}?1l\x1b>${CSI}?25h`;

/** Tab stops every 8 columns, as a terminal starts with (cleared first: a program may have set others). */
const TAB_WIDTH_COLUMNS = 8;
function defaultTabStops(cols: number): string {
  let out = `${CSI}3g`;
  for (let col = 1 + TAB_WIDTH_COLUMNS; col <= cols; col += TAB_WIDTH_COLUMNS) out += `${CSI}${col}G\x1bH`;
  return out;
}

/** Scroll margins (left/right off, top/bottom the whole screen) and origin mode off; homes the cursor. */
const RESET_MARGINS = `${CSI}?69l${CSI}r${CSI}?6l`;

/**
 * What a program may have changed that moves the cursor when reset: scroll
 * margins (top/bottom and left/right), origin mode, tab stops. DECSTR would
 * cover some, but tmux (3.3a) does not honour it for margins, so each is
 * reset by its own sequence.
 */
function resetLayout(cols: number): string {
  return `${RESET_MARGINS}${defaultTabStops(cols)}`;
}

/**
 * What a program may have changed that the next printed character depends
 * on, reset without moving the cursor: the pen (SGR 0; DECSTR does not reset
 * it in tmux), the G0–G3 charsets and the shift (SI: a program left in DEC
 * line drawing would draw every letter as a line), autowrap on, insert mode
 * off, reverse video off.
 */
const RESET_PEN = `${CSI}0m\x1b(B\x1b)B\x1b*B\x1b+B\x0f${CSI}?7h${CSI}4l${CSI}?5l`;

/** The cursor back to the terminal's default shape (a program may have set a bar or underline). */
const CURSOR_STYLE_DEFAULT = `${CSI}0 q`;

/**
 * The session's input modes set on the outer terminal, as a snapshot says
 * they are: the serialized screen does not carry all of them, and the outer
 * terminal must encode keys and mouse the way the program expects.
 */
export function assertInputModes(modes: ScreenModes): string {
  // Off first (a mode the program dropped while we were away), then on as the snapshot says.
  const off = INPUT_MODES_OFF.replace(`${CSI}?25h`, '');
  return off + inputModesOn(modes) + (modes.cursorHidden ? '' : `${CSI}?25h`);
}

export interface PaintOptions {
  /** Rows of the outer terminal: on the first paint its old screen is scrolled into its scrollback. */
  outerRows: number;
  /** Columns of the outer terminal (its tab stops are reset across them). */
  outerCols: number;
  /** The outer terminal shows this session's alternate screen now (from an earlier snapshot or stream). */
  inAltScreen: boolean;
  /** First paint of this attach: keep what the user had on screen, in the scrollback. */
  first: boolean;
}

/**
 * One write that applies a snapshot: a reset of the outer terminal's screen
 * (not of its scrollback — the user's history stays), then the snapshot's
 * data, then the input modes. The server renders a snapshot for a terminal
 * fresh from a reset (RIS); a full RIS would also clear the scrollback in some
 * terminals, so the state RIS would give is set piece by piece: normal screen,
 * soft reset (DECSTR, for the terminals that honour it, and then each piece
 * explicitly for those that do not: pen, charsets, margins, origin, autowrap,
 * insert, tab stops), input modes off, screen blanked, cursor home.
 *
 * The screen is blanked by deleting its lines, not by ED 2: tmux (its
 * scroll-on-clear) and some others push a screen cleared with ED into the
 * scrollback, which would put every repaint's old screen into the history.
 */
export function paintSnapshot(snapshot: { data: string; modes: ScreenModes }, options: PaintOptions): string {
  let out = '';
  if (options.inAltScreen) out += `${CSI}?1049l`;
  out += `${CSI}!p${resetLayout(options.outerCols)}${RESET_PEN}${INPUT_MODES_OFF}`;
  // Scroll the user's own screen up into the scrollback instead of erasing it.
  if (options.first) out += `${CSI}${options.outerRows};1H${'\n'.repeat(options.outerRows)}`;
  out += `${CSI}H${CSI}${options.outerRows}M`;
  out += snapshot.data;
  out += assertInputModes(snapshot.modes);
  return out;
}

/**
 * One write that paints a VIEW snapshot: the session rendered by the server
 * for this terminal's size, which is not the session's (tmux's crop or pad).
 * It goes in the outer terminal's alternate screen, so the normal screen and
 * the scrollback keep what the stream wrote there, and in place: the view
 * addresses every row itself and never scrolls. It needs a known state
 * first — default pen and charsets, no margins, origin and insert mode off —
 * which the session's stream may have changed; the cursor is hidden while
 * the rows are drawn and shown after as the modes say.
 */
export function paintView(view: { data: string; modes: ScreenModes }, options: { inAltScreen: boolean }): string {
  const enter = options.inAltScreen ? '' : `${CSI}?1049h`;
  return `${enter}${CSI}!p${CSI}?25l${RESET_PEN}${RESET_MARGINS}${view.data}${assertInputModes(view.modes)}`;
}

/**
 * What to write on detach or exit: the session's alternate screen left (if it
 * is on), everything a program may have changed reset (margins, origin, tab
 * stops, pen, charsets, autowrap, insert, input modes, cursor shape and
 * visibility), and the cursor on a fresh line below the session's output.
 * The cursor's place is kept across the resets that move it (DECSC/DECRC);
 * only with origin mode on is it lost, and then the fresh line is the last.
 */
export function leaveSequence(options: { inAltScreen: boolean; originMode?: boolean; cols: number; rows: number }): string {
  let out = options.inAltScreen ? `${CSI}?1049l` : '';
  out += `\x1b7${resetLayout(options.cols)}\x1b8`;
  // DECRC brought origin mode back if it was on; turning it off homes the cursor.
  if (options.originMode === true) out += `${CSI}?6l${CSI}${options.rows};1H`;
  out += `${CSI}!p${RESET_PEN}${INPUT_MODES_OFF}${CURSOR_STYLE_DEFAULT}`;
  return `${out}\r\n${CSI}J`;
}

/**
 * A message on the outer terminal's bottom row, drawn over the session's
 * screen and the cursor, pen and charsets put back (DECSC/DECRC), so bytes
 * written after it continue as the program left them. It is drawn in ASCII
 * (a program may have left DEC line drawing in G0). The row is repainted
 * afterwards: every reconnect after a status line asks for a repaint.
 */
export function statusLine(text: string, size: { cols: number; rows: number }): string {
  const shown = [...text].slice(0, size.cols).join('');
  return `\x1b7${CSI}${size.rows};1H\x1b(B\x0f${CSI}0;7m${shown}${CSI}0m${CSI}K\x1b8`;
}

/**
 * Follows whether the program has the alternate screen on, from the bytes
 * streamed to the outer terminal (CSI ? 1049/1047/47 h or l). Leaving the
 * alternate screen with ?1049l when it is not on would restore a stale saved
 * cursor, so `tend attach` writes it only when this says so. It follows
 * origin mode (CSI ? 6 h/l) too, which a detach cannot reset without losing
 * the cursor's place. A small state machine over bytes: a sequence split
 * across reads is still seen.
 */
export class AltScreenTracker {
  private state: 'ground' | 'esc' | 'csi' | 'private' = 'ground';
  private params = '';
  active = false;
  /** Origin mode (DECOM) is on. */
  originMode = false;

  constructor(active = false) {
    this.active = active;
  }

  feed(bytes: Uint8Array): void {
    let i = this.state === 'ground' ? bytes.indexOf(0x1b) : 0;
    if (i < 0) return;
    for (; i < bytes.length; i++) {
      const b = bytes[i]!;
      switch (this.state) {
        case 'ground':
          if (b === 0x1b) this.state = 'esc';
          break;
        case 'esc':
          this.state = b === 0x5b ? 'csi' : b === 0x1b ? 'esc' : 'ground';
          break;
        case 'csi':
          this.params = '';
          this.state = b === 0x3f ? 'private' : b === 0x1b ? 'esc' : 'ground';
          break;
        case 'private':
          if ((b >= 0x30 && b <= 0x39) || b === 0x3b) {
            // Bounded: a run of parameters this long is not a mode switch.
            if (this.params.length < 32) this.params += String.fromCharCode(b);
            else this.state = 'ground';
          } else {
            if (b === 0x68 || b === 0x6c) this.modeSet(b === 0x68);
            this.state = b === 0x1b ? 'esc' : 'ground';
          }
          break;
      }
    }
  }

  private modeSet(on: boolean): void {
    for (const p of this.params.split(';')) {
      if (p === '1049' || p === '1047' || p === '47') this.active = on;
      else if (p === '6') this.originMode = on;
    }
  }
}
