// A small, live, read-only picture of a session's screen for the dashboard's
// agent cards: an xterm.js terminal at the session's size, drawn by xterm's
// DOM renderer (a page may hold twenty of these, more than the WebGL contexts
// a browser allows), with no scrollback, fed over a channel of a read-only
// viewer socket, and scaled down to fit its box. It subscribes only while its
// box is on the screen (or nearly): a card scrolled away costs nothing.
import { Terminal } from '@xterm/xterm';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { TerminalLink, type LinkStatus } from './terminal-link.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { registerDebugPreview, reportProblem } from '../debug-hook.js';

/** Drawn at this size, then scaled down to the card: small enough that the scale stays near 1. */
const PREVIEW_FONT_SIZE_PX = 9;
const FONT_FAMILY = '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace';
/** Subscribe a little before the card scrolls into view, so it is drawn when it arrives. */
const NEAR_SCREEN_MARGIN = '200px';

export interface SessionPreviewOptions {
  socket: ViewerSocket;
  sessionId: string;
  theme: ThemeName;
  /** A STATE frame of the session (its agent). */
  onState?(state: Record<string, unknown>): void;
  onStatus?(status: LinkStatus): void;
}

interface Shown {
  terminal: Terminal;
  link: TerminalLink;
  unregister: () => void;
}

export class SessionPreview {
  private shown: Shown | null = null;
  private theme: ThemeName;

  constructor(private readonly options: SessionPreviewOptions) {
    this.theme = options.theme;
  }

  /** Shows the preview in `box` while it is on the screen; returns what takes it down. */
  attach(box: HTMLElement): () => void {
    const stage = document.createElement('div');
    stage.className = 'preview-stage';
    box.appendChild(stage);
    const fit = () => this.fit(box, stage);
    const sizes = new ResizeObserver(fit);
    sizes.observe(box);
    const nearScreen = new IntersectionObserver(
      (entries) => {
        const on = entries[entries.length - 1]?.isIntersecting ?? false;
        if (on && this.shown === null) this.show(stage, sizes);
        else if (!on) this.hide();
      },
      { rootMargin: NEAR_SCREEN_MARGIN },
    );
    nearScreen.observe(box);
    return () => {
      nearScreen.disconnect();
      sizes.disconnect();
      this.hide();
      stage.remove();
    };
  }

  setTheme(theme: ThemeName): void {
    this.theme = theme;
    if (this.shown) this.shown.terminal.options.theme = TERMINAL_THEMES[theme];
  }

  private show(stage: HTMLElement, sizes: ResizeObserver): void {
    const terminal = new Terminal({
      scrollback: 0,
      fontSize: PREVIEW_FONT_SIZE_PX,
      fontFamily: FONT_FAMILY,
      theme: TERMINAL_THEMES[this.theme],
      // Never typed into: no keys, no replies to the program's queries.
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
    });
    terminal.open(stage);
    const screen = terminal.element?.querySelector('.xterm-screen');
    if (screen) sizes.observe(screen);
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
    const unregister = registerDebugPreview({ sessionId: this.options.sessionId, terminal, link });
    this.shown = { terminal, link, unregister };
  }

  private hide(): void {
    const shown = this.shown;
    if (!shown) return;
    this.shown = null;
    shown.unregister();
    shown.link.dispose();
    shown.terminal.dispose();
  }

  /** Scales the terminal down (never up) to fit the box, keeping its shape. */
  private fit(box: HTMLElement, stage: HTMLElement): void {
    const screen = stage.querySelector<HTMLElement>('.xterm-screen');
    if (!screen || screen.offsetWidth === 0 || screen.offsetHeight === 0) return;
    const scale = Math.min(1, box.clientWidth / screen.offsetWidth, box.clientHeight / screen.offsetHeight);
    stage.style.transform = `scale(${scale})`;
  }
}
