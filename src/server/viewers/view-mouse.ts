// Mouse reports from a viewer shown a view (a window of the session at
// another size, view-render.ts) give the cell under the pointer in the
// viewer's terminal; the program expects the session's cell. tmux translates
// them the same way for a client whose window is cropped. The window's
// top-left is (originX, originY) in the session: reports are shifted by it,
// and a click past the session's edge (on the dots of a larger viewer) is
// dropped, as no cell of the program's is under it.
//
// Only whole reports inside one INPUT are rewritten (a terminal writes each
// report in one go); anything else passes unchanged. Encodings: SGR (1006,
// `CSI < b ; x ; y M|m`) and the default/UTF-8-free one (`CSI M b x y`, one
// byte each, 32 + 1-based position, so at most column 223).

export interface ViewWindow {
  originX: number;
  originY: number;
  /** The session's size: reports beyond it are dropped. */
  cols: number;
  rows: number;
}

const ESC = 0x1b;
const LEFT_BRACKET = 0x5b;
const LESS_THAN = 0x3c;
const CAPITAL_M = 0x4d;
const SMALL_M = 0x6d;
/** The default encoding adds this to a 1-based position, and cannot carry one past 255 − 32. */
const X10_OFFSET = 32;
const X10_MAX_POSITION = 255 - X10_OFFSET;
/** Digits and separators an SGR report is made of, and how long one can be. */
const SGR_REPORT_MAX_BYTES = 32;

/** The input with every whole mouse report moved from the view's cells to the session's. */
export function shiftMouseReports(data: Uint8Array, window: ViewWindow): Uint8Array {
  if (data.indexOf(ESC) < 0) return data;
  const out: number[] = [];
  let changed = false;
  let i = 0;
  while (i < data.length) {
    if (data[i] === ESC && data[i + 1] === LEFT_BRACKET) {
      const sgr = data[i + 2] === LESS_THAN ? readSgr(data, i + 3) : null;
      if (sgr !== null) {
        const moved = place(sgr.x, sgr.y, window);
        if (moved !== null) out.push(...encode(`\x1b[<${sgr.button};${moved.x};${moved.y}${sgr.final}`));
        changed = true;
        i = sgr.end;
        continue;
      }
      if (data[i + 2] === CAPITAL_M && i + 5 < data.length) {
        const button = data[i + 3]!;
        const moved = place(data[i + 4]! - X10_OFFSET, data[i + 5]! - X10_OFFSET, window);
        if (moved !== null && moved.x <= X10_MAX_POSITION && moved.y <= X10_MAX_POSITION) {
          out.push(ESC, LEFT_BRACKET, CAPITAL_M, button, moved.x + X10_OFFSET, moved.y + X10_OFFSET);
        }
        changed = true;
        i += 6;
        continue;
      }
    }
    out.push(data[i]!);
    i++;
  }
  return changed ? Uint8Array.from(out) : data;
}

/** 1-based view position to 1-based session position, or null past the session's edge. */
function place(x: number, y: number, window: ViewWindow): { x: number; y: number } | null {
  const sx = x + window.originX;
  const sy = y + window.originY;
  if (x < 1 || y < 1 || sx > window.cols || sy > window.rows) return null;
  return { x: sx, y: sy };
}

function readSgr(data: Uint8Array, from: number): { button: number; x: number; y: number; final: string; end: number } | null {
  const fields: number[] = [0];
  for (let i = from; i < data.length && i - from < SGR_REPORT_MAX_BYTES; i++) {
    const b = data[i]!;
    if (b >= 0x30 && b <= 0x39) fields[fields.length - 1] = fields[fields.length - 1]! * 10 + (b - 0x30);
    else if (b === 0x3b) fields.push(0);
    else if ((b === CAPITAL_M || b === SMALL_M) && fields.length === 3 && i > from) {
      return { button: fields[0]!, x: fields[1]!, y: fields[2]!, final: String.fromCharCode(b), end: i + 1 };
    } else return null;
  }
  return null;
}

function encode(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}
