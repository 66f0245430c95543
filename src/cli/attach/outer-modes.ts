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
 * soft reset (DECSTR: attributes, margins, origin/insert/wrap modes, charsets,
 * cursor visible), input modes off, screen erased, cursor home.
 */
export function paintSnapshot(snapshot: { data: string; modes: ScreenModes }, options: PaintOptions): string {
  let out = '';
  if (options.inAltScreen) out += `${CSI}?1049l`;
  out += `${CSI}!p${INPUT_MODES_OFF}`;
  // Scroll the user's own screen up into the scrollback instead of erasing it.
  if (options.first) out += `${CSI}${options.outerRows};1H${'\n'.repeat(options.outerRows)}`;
  out += `${CSI}H${CSI}2J`;
  out += snapshot.data;
  out += assertInputModes(snapshot.modes);
  return out;
}

/**
 * What to write on detach or exit: the session's alternate screen left (if it
 * is on), its input modes cleared, attributes and margins reset, the cursor
 * shown, and the cursor on a fresh line below the session's output.
 */
export function leaveSequence(options: { inAltScreen: boolean }): string {
  return `${options.inAltScreen ? `${CSI}?1049l` : ''}${CSI}!p${INPUT_MODES_OFF}${CSI}0m\r\n${CSI}J`;
}

/**
 * A message on the outer terminal's bottom row, drawn over the session's
 * screen and the cursor put back (DECSC/DECRC): the next snapshot repaints
 * that row. Used while the server is away, when nothing else is drawing.
 */
export function statusLine(text: string, size: { cols: number; rows: number }): string {
  const shown = [...text].slice(0, size.cols).join('');
  return `\x1b7${CSI}${size.rows};1H${CSI}0;7m${shown}${CSI}0m${CSI}K\x1b8`;
}

/**
 * Follows whether the program has the alternate screen on, from the bytes
 * streamed to the outer terminal (CSI ? 1049/1047/47 h or l). Leaving the
 * alternate screen with ?1049l when it is not on would restore a stale saved
 * cursor, so `tend attach` writes it only when this says so. A small state
 * machine over bytes: a sequence split across reads is still seen.
 */
export class AltScreenTracker {
  private state: 'ground' | 'esc' | 'csi' | 'private' = 'ground';
  private params = '';
  active = false;

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
    }
  }
}
