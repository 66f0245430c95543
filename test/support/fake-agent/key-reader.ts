// The fake agent's keyboard: a state machine over the characters a terminal
// in raw mode sends, as the real agents' TUIs read them. Enter submits; a
// bracketed paste (ESC[200~ … ESC[201~) is text whatever it holds, its
// newlines included, never a submit; a lone ESC is the Escape key only once
// nothing follows it for a moment, since it also starts every escape sequence.

export type Key =
  | { kind: 'text'; text: string }
  | { kind: 'paste'; text: string }
  | { kind: 'enter' }
  | { kind: 'backspace' }
  | { kind: 'escape' }
  | { kind: 'ctrl-c' }
  /** A sequence this agent does nothing with (arrows, function keys, Alt+key). */
  | { kind: 'ignored'; sequence: string };

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
export const LONE_ESCAPE_MS = 40;
/** A CSI longer than this is garbage, dropped rather than buffered without end. */
const CSI_MAX_CHARS = 32;
const PASTE_START = '200~';
const PASTE_END = '\x1b[201~';

type State = 'ground' | 'escape' | 'csi' | 'ss3' | 'paste';

export class KeyReader {
  private state: State = 'ground';
  private pending = '';
  private escapeTimer: NodeJS.Timeout | null = null;

  constructor(private readonly emit: (key: Key) => void) {}

  /** Feeds decoded characters in any chunking: a sequence split across chunks is read whole. */
  feed(chunk: string): void {
    this.cancelEscapeTimer();
    let text = '';
    const flushText = () => {
      if (text !== '') this.emit({ kind: 'text', text });
      text = '';
    };
    for (const ch of chunk) {
      switch (this.state) {
        case 'ground':
          if (ch === '\x1b') {
            flushText();
            this.state = 'escape';
          } else if (ch === '\r') {
            flushText();
            this.emit({ kind: 'enter' });
          } else if (ch === '\x7f' || ch === '\b') {
            flushText();
            this.emit({ kind: 'backspace' });
          } else if (ch === '\x03') {
            flushText();
            this.emit({ kind: 'ctrl-c' });
          } else if (ch === '\n') {
            // Ctrl-J: a new line in the prompt, as in Claude Code.
            text += '\n';
          } else if (ch < ' ') {
            flushText();
            this.emit({ kind: 'ignored', sequence: ch });
          } else {
            text += ch;
          }
          break;
        case 'escape':
          if (ch === '[') {
            this.state = 'csi';
            this.pending = '';
          } else if (ch === 'O') {
            this.state = 'ss3';
          } else if (ch === '\x1b') {
            this.emit({ kind: 'escape' });
          } else {
            this.state = 'ground';
            this.emit({ kind: 'ignored', sequence: `\x1b${ch}` });
          }
          break;
        case 'csi': {
          this.pending += ch;
          const code = ch.codePointAt(0) ?? 0;
          if (code >= 0x40 && code <= 0x7e) {
            const body = this.pending;
            this.pending = '';
            if (body === PASTE_START) {
              this.state = 'paste';
            } else {
              this.state = 'ground';
              this.emit({ kind: 'ignored', sequence: `\x1b[${body}` });
            }
          } else if (this.pending.length > CSI_MAX_CHARS) {
            this.state = 'ground';
            this.pending = '';
          }
          break;
        }
        case 'ss3':
          this.state = 'ground';
          this.emit({ kind: 'ignored', sequence: `\x1bO${ch}` });
          break;
        case 'paste':
          this.pending += ch;
          if (this.pending.endsWith(PASTE_END)) {
            const body = this.pending.slice(0, -PASTE_END.length);
            this.pending = '';
            this.state = 'ground';
            this.emit({ kind: 'paste', text: body.replace(/\r\n?/g, '\n') });
          }
          break;
      }
    }
    flushText();
    if (this.state === 'escape') {
      this.escapeTimer = setTimeout(() => {
        this.escapeTimer = null;
        if (this.state !== 'escape') return;
        this.state = 'ground';
        this.emit({ kind: 'escape' });
      }, LONE_ESCAPE_MS);
    }
  }

  dispose(): void {
    this.cancelEscapeTimer();
  }

  private cancelEscapeTimer(): void {
    if (this.escapeTimer !== null) clearTimeout(this.escapeTimer);
    this.escapeTimer = null;
  }
}
