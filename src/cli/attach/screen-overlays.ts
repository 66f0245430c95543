// What `tend attach` draws over the session's screen, and when it goes: the
// hint on entry, the read-only marker, the notice that the screen is
// incomplete (each one row, for a while), and the panels the prefix keys open
// (the keys, the session list), which take the keys typed until they end.
// overlay.ts draws; this decides what is shown, keeps count of the rows drawn
// over, and asks the attach (the host) to repaint when something ends. The
// notice and the panels hold output back (attach-session.ts drops stream
// bytes while rows are covered, and the repaint replaces them: rows that
// scrolled away meanwhile miss the outer scrollback). The hint and the
// marker, shown on every attach and every key typed read-only, must cost
// nothing of the sort: they give way, their row blanked before output or
// when they end, so the stream goes on and the outer scrollback keeps every
// row, and the repaint after puts back the row blanked.
import { describeDetachKey } from './detach-key.js';
import { drawOverlay, eraseOverlay, type OverlayLine } from './overlay.js';
import { describePrefixKeys } from './prefix-keys.js';
import { SessionPicker, sessionLabel, type SessionChoice } from './session-picker.js';

/** How long the hint on entry stays on the bottom row if no output or key ends it sooner. */
const HINT_SHOW_MS = 4000;
/** How long the notice that the screen is incomplete stays (a key ends it sooner). */
const NOTICE_SHOW_MS = 4000;
/** How long the read-only marker stays after the last key typed into a read-only attach. */
const READ_ONLY_MARKER_SHOW_MS = 3000;
// Not why (a ring gap, a damaged history file: the server's log says): the line fits 80 columns.
export const DEGRADED_NOTICE = 'tend: part of this session\'s output was lost; the screen is incomplete';

type Overlay =
  | { kind: 'hint' | 'read-only' | 'notice' | 'keys' }
  /** The session list; no picker while the list is being fetched, or when it could not be. */
  | { kind: 'sessions'; picker: SessionPicker | null; lines: OverlayLine[] };

export interface OverlayHost {
  /** The outer terminal's size now. */
  size(): { cols: number; rows: number };
  /** Whether anything may be drawn: a terminal, with a session screen painted on it to repaint. */
  canDraw(): boolean;
  write(text: string): void;
  /** Asks the server for the screen again (the rows drawn over go). */
  repaint(): void;
  /** Shows another session; returns why it cannot (the list says so), or null once switching. */
  switchTo(session: SessionChoice): string | null;
  /** Bytes typed in a panel that are typing again (from the prefix on: `prefix d` detaches from a panel). */
  typed(bytes: Uint8Array): void;
  /** The session shown. */
  session(): { id: string; name: string | null };
}

export interface OverlayOptions {
  readOnly: boolean;
  prefix: number;
  /** The sessions for the list (GET /v1/sessions); without it `prefix s` does nothing. */
  listSessions?: () => Promise<SessionChoice[]>;
  /** The session this terminal runs in (TEND_SESSION): the list refuses to show it inside itself. */
  selfSessionId?: string;
}

export class ScreenOverlays {
  private overlay: Overlay | null = null;
  private timer: NodeJS.Timeout | null = null;
  private covered = 0;
  /** Rows were blanked where an overlay was (it gave way): the screen waits for a repaint, the stream does not. */
  private blanked = false;
  /** The hint was shown for the session shown (once on entry, once after a switch). */
  private hintGiven = false;

  constructor(private readonly host: OverlayHost, private readonly options: OverlayOptions) {}

  /**
   * Bottom rows drawn over since the last snapshot was painted: stream bytes
   * wait for the repaint that covers them, since output would scroll the
   * drawn rows into the history.
   */
  get coveredRows(): number {
    return this.covered;
  }

  /** The screen is not the session's until the server repaints it: rows drawn over, or blanked. */
  get repaintOwed(): boolean {
    return this.covered > 0 || this.blanked;
  }

  /** The hint or the marker is what covers rows: output ends it (giveWay) rather than waiting. */
  get givesWayToOutput(): boolean {
    return this.overlay?.kind === 'hint' || this.overlay?.kind === 'read-only';
  }

  /** A panel is shown: it takes the keys typed, and snapshots wait until it ends. */
  get panelShown(): boolean {
    return this.overlay?.kind === 'keys' || this.overlay?.kind === 'sessions';
  }

  /**
   * A snapshot is being painted: every row is the session's again, and what
   * was drawn is gone. The read-only marker stays shown (a key typed just
   * before a repaint would otherwise lose its answer): afterPaint draws it again.
   */
  painted(): void {
    if (this.overlay?.kind !== 'read-only') this.clear();
    this.covered = 0;
    this.blanked = false;
  }

  /** The snapshot is on the screen: the marker is drawn over it again, or the hint given if it is due. */
  afterPaint(): void {
    if (this.overlay?.kind === 'read-only') this.draw();
    else this.showHint();
  }

  /**
   * Ends the hint or the marker without holding the stream back: returns what
   * blanks the rows drawn over (write it before the output, then ask for a repaint).
   */
  giveWay(): string {
    this.clear();
    const erase = eraseOverlay(this.covered, this.host.size());
    this.covered = 0;
    this.blanked = true;
    return erase;
  }

  /**
   * The attach's status line (statusLine on the bottom row: "reconnecting…",
   * typing refused) gives way to output as the hint does: returns what blanks
   * its row (write it before the output); a repaint is owed from then on.
   */
  statusGiveWay(): string {
    this.blanked = true;
    return eraseOverlay(1, this.host.size());
  }

  /** A key typed outside a panel ends the hint or the notice (the key goes on to the session). */
  keyTyped(): void {
    if (this.overlay !== null && this.overlay.kind !== 'read-only') this.end();
  }

  /** Another session is shown: it gets its own hint. */
  sessionChanged(): void {
    this.clear();
    this.hintGiven = false;
  }

  /**
   * The hint on entry (and after a switch), on the bottom row: which session
   * this is and the keys that matter. tend has no status line to keep it on
   * (the session gets every row, as without tend), and a line printed before
   * the first paint would be scrolled into the history unseen; so it is drawn
   * over the screen until the first output, a key or HINT_SHOW_MS.
   */
  private showHint(): void {
    if (this.hintGiven || !this.host.canDraw()) return;
    this.hintGiven = true;
    this.show({ kind: 'hint' });
  }

  showNotice(): void {
    this.show({ kind: 'notice' });
  }

  showKeys(): void {
    if (this.host.canDraw()) this.show({ kind: 'keys' });
  }

  /** Typing into a read-only attach does nothing: the marker says why, for a while after the last key. */
  showReadOnlyMarker(): void {
    if (!this.host.canDraw()) return;
    if (this.overlay?.kind !== 'read-only') {
      this.show({ kind: 'read-only' });
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.end(), READ_ONLY_MARKER_SHOW_MS);
  }

  showSessions(): void {
    const list = this.options.listSessions;
    if (!list || !this.host.canDraw()) return;
    const overlay: Overlay = { kind: 'sessions', picker: null, lines: [{ text: 'tend: listing the sessions…' }] };
    this.show(overlay);
    list().then(
      (sessions) => {
        if (this.overlay !== overlay) return; // left before the list came
        overlay.picker = new SessionPicker(sessions, this.host.session().id, this.options.selfSessionId);
        this.draw();
      },
      (err: unknown) => {
        if (this.overlay !== overlay) return;
        overlay.lines = [{ text: `tend: could not list the sessions (${err instanceof Error ? err.message : String(err)}); any key returns` }];
        this.draw();
      },
    );
  }

  /**
   * Keys while a panel is shown. The keys panel ends at any key, the list at
   * its own keys (session-picker.ts); the prefix leaves either and counts as
   * typed, so `prefix d` detaches from a panel too.
   */
  panelTyped(chunk: Uint8Array): void {
    const overlay = this.overlay;
    const prefixAt = chunk.indexOf(this.options.prefix);
    const picker = overlay?.kind === 'sessions' ? overlay.picker : null;
    if (picker === null || prefixAt >= 0) {
      this.end();
      if (prefixAt >= 0) this.host.typed(chunk.subarray(prefixAt));
      return;
    }
    const action = picker.key(chunk);
    switch (action.kind) {
      case 'none':
        return;
      case 'redraw':
        this.draw();
        return;
      case 'cancel':
        this.end();
        return;
      case 'switch': {
        const refused = this.host.switchTo(action.session);
        if (refused === null) return;
        picker.refuse(refused);
        this.draw();
        return;
      }
    }
  }

  /** The outer terminal was resized: a panel holds back the snapshot the new size brings, so it is drawn again. */
  resized(): void {
    if (this.panelShown) this.draw();
  }

  /** What to write when the attach ends: rows drawn over and not yet repainted blanked, rather than left showing. */
  leaving(): string {
    this.clear();
    return this.covered > 0 ? eraseOverlay(this.covered, this.host.size()) : '';
  }

  private show(overlay: Overlay): void {
    this.clear();
    this.overlay = overlay;
    this.draw();
    const showMs = overlay.kind === 'hint' ? HINT_SHOW_MS : overlay.kind === 'notice' ? NOTICE_SHOW_MS : overlay.kind === 'read-only' ? READ_ONLY_MARKER_SHOW_MS : null;
    if (showMs !== null) this.timer = setTimeout(() => this.end(), showMs);
  }

  /** Ends what is drawn over the screen and asks for a repaint (the notice and the panels hold the stream until it comes). */
  private end(): void {
    if (this.givesWayToOutput) this.host.write(this.giveWay());
    this.clear();
    this.host.repaint();
  }

  private clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.overlay = null;
  }

  private draw(): void {
    const lines = this.lines();
    if (lines.length === 0) return;
    const size = this.host.size();
    this.covered = Math.max(this.covered, Math.min(lines.length, size.rows));
    this.host.write(drawOverlay(lines, size));
  }

  private lines(): OverlayLine[] {
    const overlay = this.overlay;
    const prefix = describeDetachKey(this.options.prefix);
    const label = sessionLabel(this.host.session());
    const readOnly = this.options.readOnly;
    switch (overlay?.kind) {
      case undefined:
        return [];
      case 'hint':
        return [{ text: `tend: ${readOnly ? 'watching' : 'attached to'} ${label}${readOnly ? ' read-only' : ''} · ${prefix} d detaches, ${prefix} ? lists the keys` }];
      case 'read-only':
        return [{ text: `tend: read-only: what you type is not sent to ${label} · ${prefix} d detaches` }];
      case 'notice':
        return [{ text: DEGRADED_NOTICE }];
      case 'keys':
        return [
          { text: `tend attach: the keys after the prefix, ${prefix} (showing ${label}${readOnly ? ', read-only: what you type is not sent' : ''})` },
          ...describePrefixKeys(this.options.prefix).map((text) => ({ text: `  ${text}` })),
          { text: 'any key returns' },
        ];
      case 'sessions':
        return overlay.picker ? overlay.picker.lines(this.host.size().rows) : overlay.lines;
    }
  }
}
