// The session list of `tend attach` (`prefix s`, like tmux's choose-tree):
// the sessions GET /v1/sessions returns, one row each with the index `tend
// ls` shows, the attached one marked. Up/down (or k/j) move the selection,
// Enter switches to it, a digit switches to the session of that index, Esc,
// q or Ctrl-C go back. Only running sessions can be switched to; picking
// another says why not on the list's last row. This is the list's state and
// its keys; attach-session.ts draws it (overlay.ts) and does the switch.
import type { ListedSession } from '../../protocol/api/index.js';
import { agentText, commandText } from '../format.js';
import type { OverlayLine } from './overlay.js';

/** What the list needs of a session: the API's listed session, its id, name and status at least. */
export type SessionChoice = Pick<ListedSession, 'id' | 'name' | 'status'> & Partial<Pick<ListedSession, 'index' | 'argv' | 'title' | 'cwd' | 'agent' | 'cols' | 'rows'>>;

export type PickerAction =
  | { kind: 'none' }
  /** The selection or the message changed: draw again. */
  | { kind: 'redraw' }
  | { kind: 'cancel' }
  | { kind: 'switch'; session: SessionChoice };

const ESC = 0x1b;
const CTRL_C = 0x03;
const CTRL_G = 0x07;
const CTRL_N = 0x0e;
const CTRL_P = 0x10;

export function sessionLabel(session: { id: string; name: string | null }): string {
  return session.name ? `:${session.name}` : session.id;
}

export class SessionPicker {
  private selected: number;
  /** Why the last pick was refused; shown on the list's last row until the next key. */
  private message: string | null = null;

  constructor(
    private readonly sessions: readonly SessionChoice[],
    /** The session this attach shows now. */
    private readonly currentId: string,
    /** The session this terminal itself runs in (TEND_SESSION), if any: showing it here would loop. */
    private readonly selfId: string | undefined,
  ) {
    this.selected = Math.max(0, sessions.findIndex((s) => s.id === currentId));
  }

  /** Keys typed while the list is shown; the first that ends the list decides. */
  key(chunk: Uint8Array): PickerAction {
    let changed = this.message !== null;
    this.message = null;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === ESC) {
        // A lone ESC (the last byte of a read) is the Esc key; else a sequence: arrows move, the rest is ignored.
        if (i + 1 >= chunk.length) return { kind: 'cancel' };
        const intro = chunk[i + 1]!;
        if (intro !== 0x5b && intro !== 0x4f) {
          i++; // Alt and a key
          continue;
        }
        let end = i + 2;
        while (end < chunk.length && chunk[end]! >= 0x20 && chunk[end]! <= 0x3f) end++;
        const final = chunk[end];
        if (final === 0x41) changed = this.move(-1) || changed;
        else if (final === 0x42) changed = this.move(1) || changed;
        i = end;
        continue;
      }
      if (byte === 0x6b || byte === CTRL_P) changed = this.move(-1) || changed; // k
      else if (byte === 0x6a || byte === CTRL_N) changed = this.move(1) || changed; // j
      else if (byte === 0x71 || byte === CTRL_C || byte === CTRL_G) return { kind: 'cancel' }; // q
      else if (byte === 0x0d || byte === 0x0a) return this.pick(this.selected);
      else if (byte >= 0x31 && byte <= 0x39) {
        const at = this.sessions.findIndex((s, n) => (s.index ?? n + 1) === byte - 0x30);
        if (at >= 0) {
          this.selected = at;
          return this.pick(at);
        }
      }
    }
    return changed ? { kind: 'redraw' } : { kind: 'none' };
  }

  /** Refuses a pick with a message on the list (the switch found the session could not be shown). */
  refuse(message: string): void {
    this.message = message;
  }

  /** The list as overlay rows for a terminal `rows` high: a header, the sessions around the selection, the message. */
  lines(rows: number): OverlayLine[] {
    const header: OverlayLine = { text: 'tend: sessions · Enter switches, up/down or j/k move, 1-9 picks, Esc/q returns' };
    const footer: OverlayLine[] = this.message === null ? [] : [{ text: this.message }];
    if (this.sessions.length === 0) return [header, { text: '  no sessions' }, ...footer];
    const room = Math.max(1, rows - 1 - footer.length);
    const first = Math.min(Math.max(0, this.selected - Math.floor(room / 2)), Math.max(0, this.sessions.length - room));
    const shown = this.sessions.slice(first, first + room).map((s, n) => this.row(s, first + n));
    return [header, ...shown, ...footer];
  }

  private row(session: SessionChoice, at: number): OverlayLine {
    const mark = session.id === this.currentId ? '*' : ' ';
    const index = String(session.index ?? at + 1).padStart(3);
    const status = session.status === 'running' ? '' : `  [${session.status}]`;
    // The agent's state beside it ("claude needs-permission"), as `tend ls` shows it.
    const agent = session.agent ? `  ${agentText(session.agent)}` : '';
    // What runs, then its title or directory, as `tend ls` shows them.
    const what = [session.argv?.length ? commandText(session.argv) : '', session.title || session.cwd || ''].filter((part) => part !== '').join('  ');
    const id = session.name ? ` (${session.id})` : '';
    return { text: `${index} ${mark} ${sessionLabel(session)}${id}${status}${agent}${what ? `  ${what}` : ''}`, highlight: at === this.selected };
  }

  private move(by: number): boolean {
    const next = Math.min(this.sessions.length - 1, Math.max(0, this.selected + by));
    if (next === this.selected) return false;
    this.selected = next;
    return true;
  }

  private pick(at: number): PickerAction {
    const session = this.sessions[at];
    if (!session || session.id === this.currentId) return { kind: 'cancel' };
    if (session.id === this.selfId) this.message = `${sessionLabel(session)} is this terminal's own session; it cannot be shown inside itself`;
    else if (session.status === 'cold') this.message = `${sessionLabel(session)} is cold (its process is gone); \`tend revive\` starts a new shell in it`;
    else if (session.status !== 'running') this.message = `${sessionLabel(session)} is ${session.status}; only a running session can be shown`;
    else return { kind: 'switch', session };
    return { kind: 'redraw' };
  }
}
