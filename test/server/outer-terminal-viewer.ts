// A `tend attach` over the server's socket, reduced to what its outer
// terminal shows: a headless xterm of the viewer's own size (which never
// follows the session's: a real terminal does not resize when the PTY does),
// fed what the viewer receives and painted the way `tend attach` paints it —
// paintView for a VIEW snapshot, paintSnapshot for a snapshot of the session,
// the stream's bytes as they come — acking after the terminal parsed them.
// With the expected window (expectedView) a test checks that a viewer of
// another size shows the session cropped or padded as the server should.
import xtermHeadless from '@xterm/headless';
import WebSocket from 'ws';
import {
  VIEWER_PROTOCOL_VERSION,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../src/protocol/viewer-frames.js';
import { AltScreenTracker, paintSnapshot, paintView } from '../../src/cli/attach/outer-modes.js';
import { VIEW_PAD_CHAR, viewOffset } from '../../src/server/screen/view-render.js';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

const CHANNEL = 1;

export class OuterTerminalViewer {
  readonly terminal: HeadlessTerminal;
  /** Every frame received on the current socket, decoded, in order. */
  readonly received: FrameFromServer[] = [];
  /** The seq of the last VIEW snapshot the terminal has parsed (null: none since the last connect). */
  viewSeq: number | null = null;
  /** The stream seq the terminal has parsed up to, a view's or the stream's. */
  parsedSeq: number | null = null;
  /** The last paint was a view (else the stream at the session's size). */
  showsView = false;
  private ws: WebSocket | null = null;
  private readonly altScreen = new AltScreenTracker();
  private painted = false;
  private lastAcked: number | null = null;
  /** Bumped on each connect: a parse callback of the old socket's frames must not ack on the new one. */
  private generation = 0;

  constructor(
    private readonly socketPath: string,
    private readonly sessionId: string,
    readonly cols: number,
    readonly rows: number,
    readonly readOnly: boolean,
  ) {
    this.terminal = new Terminal({ cols, rows, scrollback: 100, allowProposedApi: true });
  }

  /**
   * A new socket (the old one died with its server). Like `tend attach` after
   * a view, it subscribes without a resume point: its screen matches no
   * stream position, so the server sends a snapshot or a view.
   */
  async connect(): Promise<void> {
    this.ws?.terminate();
    const generation = ++this.generation;
    const ws = new WebSocket(`ws+unix://${this.socketPath}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer) => {
      if (generation === this.generation) this.receive(decodeFrameFromServer(new Uint8Array(data)), generation);
    });
    ws.on('error', () => undefined);
    this.ws = ws;
    this.received.length = 0;
    this.viewSeq = null;
    this.parsedSeq = null;
    this.lastAcked = null;
    this.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: this.readOnly });
    this.send({ type: 'subscribe', channel: CHANNEL, sessionId: this.sessionId, cols: this.cols, rows: this.rows, keepsHistory: this.painted });
  }

  /** The last frames that moved the screen, for a failure's message: kind and seq, oldest first. */
  recentSeqs(count: number): string {
    const moved = this.received.filter((f) => f.type === 'snapshot' || f.type === 'data').slice(-count);
    const shown = moved.map((f) => (f.type === 'snapshot' ? `${f.view ? 'view' : 'snapshot'}@${f.seq}` : `data@${f.seq}`));
    return `${shown.join(' ')}; acked ${this.lastAcked}`;
  }

  send(frame: FrameFromViewer): void {
    this.ws?.send(encodeFrameToServer(frame));
  }

  close(): void {
    this.generation++;
    this.ws?.terminate();
    this.ws = null;
    this.terminal.dispose();
  }

  private receive(frame: FrameFromServer, generation: number): void {
    this.received.push(frame);
    switch (frame.type) {
      case 'snapshot':
        if (frame.view) {
          this.write(paintView(frame, { inAltScreen: this.altScreen.active }), frame.seq, generation, true);
          this.altScreen.active = true;
          this.showsView = true;
        } else {
          const paint = paintSnapshot(frame, { outerRows: this.rows, outerCols: this.cols, inAltScreen: this.altScreen.active, first: !this.painted });
          this.write(paint, frame.seq, generation, false);
          this.altScreen.active = frame.modes.altScreen;
          this.altScreen.originMode = frame.modes.originMode;
          this.showsView = false;
        }
        this.painted = true;
        return;
      case 'data':
        this.altScreen.feed(frame.data);
        this.write(frame.data, frame.seq, generation, false);
        return;
      default:
        // RESIZE: the outer terminal keeps its size, as a real one does.
        return;
    }
  }

  private write(data: string | Uint8Array, seq: number, generation: number, view: boolean): void {
    this.terminal.write(data, () => {
      if (generation !== this.generation) return;
      this.parsedSeq = seq;
      if (view) this.viewSeq = seq;
      if (this.lastAcked === null || seq > this.lastAcked) {
        this.lastAcked = seq;
        this.send({ type: 'ack', channel: CHANNEL, seq });
      }
    });
  }
}

/** The session's screen as the API gives it. */
export interface ScreenCells {
  /** One line per row; a line may lack its trailing blanks. */
  text: string;
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
}

/**
 * What a `cols` × `rows` terminal must show of `screen` (of another size):
 * the window of the session the server chose — its origin is derived from
 * the cursor by the server's own rule (viewOffset) — with the part beyond
 * the session filled with the pad character, one string of exactly `cols`
 * characters per row, and the cursor in the window's coordinates.
 */
export function expectedView(screen: ScreenCells, cols: number, rows: number): { lines: string[]; cursor: { x: number; y: number }; origin: { x: number; y: number } } {
  const cursorX = Math.min(screen.cursor.x, screen.cols - 1);
  const origin = { x: viewOffset(cursorX, screen.cols, cols), y: viewOffset(screen.cursor.y, screen.rows, rows) };
  const shownCols = Math.min(cols, screen.cols - origin.x);
  const shownRows = Math.min(rows, screen.rows - origin.y);
  const sessionLines = screen.text.split('\n');
  const lines: string[] = [];
  for (let y = 0; y < rows; y++) {
    if (y >= shownRows) {
      lines.push(VIEW_PAD_CHAR.repeat(cols));
      continue;
    }
    const row = (sessionLines[origin.y + y] ?? '').padEnd(screen.cols, ' ');
    lines.push(row.slice(origin.x, origin.x + shownCols) + VIEW_PAD_CHAR.repeat(cols - shownCols));
  }
  return { lines, cursor: { x: cursorX - origin.x, y: screen.cursor.y - origin.y }, origin };
}

/** Every cell of the terminal's visible screen, one string of exactly its width per row. */
export function screenCells(terminal: HeadlessTerminal): string[] {
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < terminal.rows; y++) lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(false) ?? '').padEnd(terminal.cols, ' '));
  return lines;
}
