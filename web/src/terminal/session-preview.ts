// A small, live, read-only picture of a session's screen for the dashboard's
// agent cards. The session's output is parsed by an xterm.js terminal that is
// never opened (a buffer, no renderer, no scrollback), and its screen's text
// is drawn on a canvas (drawInto says which rows, how large) at most every
// PREVIEW_FRAME_MS, every preview on one shared tick. Twenty busy previews
// must not make the page sluggish: an opened xterm per card redrew each one
// for every line and took the main thread whole; text in the page still cost
// a style, layout and paint per change; a canvas costs least
// (test/web/agents-page-bench.ts, figures in docs/agents.md). It subscribes
// over a read-only viewer socket, and only while its box is on the screen
// (or nearly): a card scrolled away costs nothing.
import { Terminal } from '@xterm/xterm';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { TerminalLink, type LinkStatus } from './terminal-link.js';
import { registerDebugPreview, reportProblem } from '../debug-hook.js';

/** The pictures are redrawn at most this often: a glance, not a terminal. */
const PREVIEW_FRAME_MS = 250;
/** The font is sized to fit the screen in the card; a character is measured at this size. */
const MEASURE_FONT_PX = 100;
const LINE_HEIGHT = 1.2;
/** Below this a preview crops to its last rows rather than shrink its text further. */
const MIN_READABLE_FONT_PX = 6;
const PREVIEW_PADDING_PX = 4;
/** Subscribe a little before the card scrolls into view, so it is drawn when it arrives. */
const NEAR_SCREEN_MARGIN = '200px';

/** Previews that changed since the last tick, each by its draw function (owing twice is owing once). */
const owed = new Set<() => void>();
let tick: number | null = null;

/** Every preview on the page, to be drawn again in the new theme's colours. */
const everyDraw = new Set<() => void>();
let themeWatch: MutationObserver | null = null;

function drawSoon(draw: () => void): void {
  owed.add(draw);
  if (tick !== null) return;
  tick = window.setTimeout(() => {
    tick = null;
    const draws = [...owed];
    owed.clear();
    for (const d of draws) d();
  }, PREVIEW_FRAME_MS);
}

/** The page's theme is an attribute of <html> (App.tsx): one watcher for all previews. */
function watchTheme(draw: () => void): () => void {
  everyDraw.add(draw);
  if (themeWatch === null) {
    themeWatch = new MutationObserver(() => {
      for (const d of everyDraw) drawSoon(d);
    });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  }
  return () => {
    everyDraw.delete(draw);
    if (everyDraw.size === 0) {
      themeWatch?.disconnect();
      themeWatch = null;
    }
  };
}

export interface SessionPreviewOptions {
  socket: ViewerSocket;
  sessionId: string;
  /** A STATE frame of the session (its agent). */
  onState?(state: Record<string, unknown>): void;
  onStatus?(status: LinkStatus): void;
}

interface Shown {
  terminal: Terminal;
  link: TerminalLink;
  unregister: () => void;
  disposeWatch: () => void;
}

export class SessionPreview {
  private shown: Shown | null = null;
  /** What the canvas was drawn from: the screen's text, and the box and screen sizes. */
  private drawnText = '';
  /** The rows the canvas shows (for the debug hook: what a person sees). */
  private shownText = '';
  private drawnKey = '';
  /** This preview's turn on the shared tick (one function, so owing twice is owing once). */
  private draw: () => void = () => undefined;

  constructor(private readonly options: SessionPreviewOptions) {}

  /** Shows the preview in `box` while it is on the screen; returns what takes it down. */
  attach(box: HTMLElement): () => void {
    const canvas = document.createElement('canvas');
    canvas.className = 'preview-canvas';
    box.appendChild(canvas);
    // The box changed size (the window, the grid) or the page its theme: the picture is drawn again.
    const redraw = () => {
      this.drawnKey = '';
      if (this.shown) drawSoon(this.draw);
    };
    const sizes = new ResizeObserver(redraw);
    const stopThemeWatch = watchTheme(redraw);
    sizes.observe(box);
    const nearScreen = new IntersectionObserver(
      (entries) => {
        const on = entries[entries.length - 1]?.isIntersecting ?? false;
        if (on && this.shown === null) this.show(box, canvas);
        else if (!on) this.hide();
      },
      { rootMargin: NEAR_SCREEN_MARGIN },
    );
    nearScreen.observe(box);
    return () => {
      nearScreen.disconnect();
      sizes.disconnect();
      stopThemeWatch();
      this.hide();
      canvas.remove();
    };
  }

  private show(box: HTMLElement, canvas: HTMLCanvasElement): void {
    // Never opened: xterm parses into its buffer and draws nothing. disableStdin: no replies to the program's queries.
    const terminal = new Terminal({ scrollback: 0, disableStdin: true });
    const link = new TerminalLink({
      socket: this.options.socket,
      sessionId: this.options.sessionId,
      terminal,
      // The socket is read-only: the size asked for is never given to the PTY.
      wantedSize: () => ({ cols: terminal.cols, rows: terminal.rows }),
      screenOnly: true,
      events: {
        state: (state) => this.options.onState?.(state),
        status: (status) => this.options.onStatus?.(status),
      },
      onProblem: reportProblem,
    });
    this.draw = () => this.drawInto(box, canvas);
    const scheduleDraw = () => drawSoon(this.draw);
    const written = terminal.onWriteParsed(scheduleDraw);
    const resized = terminal.onResize(scheduleDraw);
    const unregister = registerDebugPreview({ sessionId: this.options.sessionId, terminal, link, shownText: () => this.shownText });
    this.shown = {
      terminal,
      link,
      unregister,
      disposeWatch: () => {
        written.dispose();
        resized.dispose();
      },
    };
  }

  private hide(): void {
    const shown = this.shown;
    if (!shown) return;
    this.shown = null;
    owed.delete(this.draw);
    shown.disposeWatch();
    shown.unregister();
    shown.link.dispose();
    shown.terminal.dispose();
  }

  /**
   * The screen's text on the canvas: its rows down to the last one with text
   * (a shell's few lines are shown larger than its whole blank screen would
   * allow), in the largest font that fits the session's width and those rows;
   * when that font would be too small to read, the rows that fit at the
   * smallest readable one, the last (where a prompt and the latest output are).
   */
  private drawInto(box: HTMLElement, canvas: HTMLCanvasElement): void {
    const terminal = this.shown?.terminal;
    const ctx = canvas.getContext('2d');
    if (!terminal || !ctx) return;
    const buffer = terminal.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < terminal.rows; y++) rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true).trimEnd() ?? '');
    while (rows.length > 1 && rows[rows.length - 1] === '') rows.pop();
    const text = rows.join('\n');
    const width = box.clientWidth;
    const height = box.clientHeight;
    const key = `${width}x${height}:${terminal.cols}x${terminal.rows}`;
    if (text === this.drawnText && key === this.drawnKey) return;
    const ratio = window.devicePixelRatio || 1;
    if (key !== this.drawnKey) {
      canvas.width = Math.max(1, Math.round(width * ratio));
      canvas.height = Math.max(1, Math.round(height * ratio));
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    this.drawnKey = key;
    this.drawnText = text;
    const style = getComputedStyle(box);
    const family = style.fontFamily;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    // A character's width per pixel of font size, for this font.
    ctx.font = `${MEASURE_FONT_PX}px ${family}`;
    const charPerPx = ctx.measureText('M').width / MEASURE_FONT_PX;
    const pad = PREVIEW_PADDING_PX;
    const widthFitPx = (width - 2 * pad) / (terminal.cols * charPerPx);
    const rowsFitPx = (height - 2 * pad) / (rows.length * LINE_HEIGHT);
    const fontPx = Math.min(widthFitPx, Math.max(rowsFitPx, MIN_READABLE_FONT_PX));
    if (!(fontPx > 0)) return;
    const lineHeightPx = fontPx * LINE_HEIGHT;
    const shown = rows.slice(Math.max(0, rows.length - Math.floor((height - 2 * pad) / lineHeightPx)));
    this.shownText = shown.join('\n');
    ctx.font = `${fontPx}px ${family}`;
    ctx.textBaseline = 'top';
    ctx.fillStyle = style.color;
    for (let y = 0; y < shown.length; y++) if (shown[y] !== '') ctx.fillText(shown[y]!, pad, pad + y * lineHeightPx);
  }
}
