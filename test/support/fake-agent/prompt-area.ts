// The fake agent's input line, drawn inline in the normal screen buffer as
// Claude Code draws its own: a mark ("> "), the typed text (its newlines on
// continuation rows), and an optional hint row beneath. It is redrawn in place
// after every edit, so it has to know how many rows it covers, wrapping included.

export interface PromptAreaOptions {
  write: (s: string) => void;
  /** Drawn before the first row of the text. */
  mark: string;
  /** Drawn before each further row of a multi-line text. */
  continuation: string;
  columns: () => number;
}

export class PromptArea {
  text = '';
  private hint: string | null = null;
  /** Whether the area is on screen: only then is it erased before a redraw. */
  private shown = false;
  /** Rows from the area's first row down to the cursor. */
  private cursorRow = 0;

  constructor(private readonly opts: PromptAreaOptions) {}

  get visible(): boolean {
    return this.shown;
  }

  /** Draws the area at the cursor, which must be at the start of a row. */
  show(): void {
    this.render();
  }

  insert(s: string): void {
    this.text += s;
    if (this.shown) this.render();
  }

  backspace(): void {
    const chars = [...this.text];
    chars.pop();
    this.text = chars.join('');
    if (this.shown) this.render();
  }

  clear(): void {
    this.text = '';
    if (this.shown) this.render();
  }

  setHint(hint: string | null): void {
    this.hint = hint;
    if (this.shown) this.render();
  }

  /**
   * Leaves the text on screen as the user's line of the conversation (no hint),
   * moves below it and returns it; the area is empty and hidden afterwards.
   */
  commit(): string {
    this.hint = null;
    this.render();
    this.opts.write('\r\n');
    const text = this.text;
    this.text = '';
    this.shown = false;
    this.cursorRow = 0;
    return text;
  }

  private render(): void {
    const { write, mark, continuation } = this.opts;
    const columns = Math.max(1, this.opts.columns());
    let out = '';
    if (this.shown) out += `${this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : ''}\r\x1b[J`;
    const rows = this.text.split('\n').map((line, i) => (i === 0 ? mark : continuation) + line);
    out += rows.join('\r\n');
    let cursorRow = 0;
    rows.forEach((row, i) => {
      if (i < rows.length - 1) cursorRow += Math.max(1, Math.ceil(displayWidth(row) / columns));
    });
    const lastWidth = displayWidth(rows[rows.length - 1] ?? '');
    // A row filled to the margin leaves the cursor on it (pending wrap), not on the next.
    const atMargin = lastWidth > 0 && lastWidth % columns === 0;
    cursorRow += atMargin ? lastWidth / columns - 1 : Math.floor(lastWidth / columns);
    const column = atMargin ? columns - 1 : lastWidth % columns;
    if (this.hint !== null) out += `\r\n${this.hint}\x1b[1A\r${column > 0 ? `\x1b[${column}C` : ''}`;
    write(out);
    this.shown = true;
    this.cursorRow = cursorRow;
  }
}

/** Cells a string takes: wide East Asian characters and emoji two, combining marks none. */
export function displayWidth(s: string): number {
  let width = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if ((c >= 0x300 && c <= 0x36f) || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) continue;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1f64f) ||
      (c >= 0x1f900 && c <= 0x1f9ff) ||
      (c >= 0x20000 && c <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}
