// The server ↔ viewer protocol: one codec for the server, `tend attach` and the
// browser, so it uses only Uint8Array, DataView and TextEncoder/TextDecoder (no
// Node Buffer, no DOM). One frame per binary WebSocket message, so there is no
// length prefix: the message boundary is the frame boundary.
//
// Every frame: u8 type, u32 channel (little-endian), payload. The channel lets
// one browser socket carry several sessions; HELLO and WELCOME belong to the
// socket and travel on channel 0. The type's high bit is the direction
// (0x80 = server → viewer), and each side decodes only the other side's frames:
// a shared decoder once read the first bytes of an INPUT frame as a seq and
// broke IME input, so reading a frame of the wrong direction is an error.
//
// Positions (seq) are JavaScript safe integers on the wire as u64 LE; a value
// above 2^53 − 1 is refused rather than rounded. docs/viewer-protocol.md is the
// prose version of this file.

export const VIEWER_PROTOCOL_VERSION = 2;
/**
 * The oldest version a server still serves: a version-1 viewer (no writer in
 * its HELLO) types with INPUT alone, unacknowledged, and never sees the frames
 * version 2 added.
 */
export const MIN_VIEWER_PROTOCOL_VERSION = 1;

export const FRAME_HEADER_BYTES = 5;
const SERVER_DIRECTION_BIT = 0x80;

/** What a server accepts by default: input is chunked by the viewer (see splitInput). */
export const DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES = 1024 * 1024;
/** What a viewer accepts by default: a snapshot with 1 000 rows of wide, coloured scrollback fits. */
export const DEFAULT_MAX_FRAME_FROM_SERVER_BYTES = 32 * 1024 * 1024;
/** Input bytes per INPUT frame a viewer should send; a larger paste is split by splitInput. */
export const MAX_INPUT_BYTES_PER_FRAME = 64 * 1024;
/** A writer id (HELLO, INPUT_AT): random bytes naming one viewer's input across its reconnects. */
export const WRITER_ID_BYTES = 16;

export const MIN_COLS = 1;
export const MIN_ROWS = 1;
export const MAX_COLS = 1000;
export const MAX_ROWS = 1000;
/** Session ids, boot ids and version strings are short names, not payloads. */
export const MAX_NAME_BYTES = 1024;

export const FrameType = {
  // viewer → server
  HELLO: 0x01,
  SUBSCRIBE: 0x02,
  UNSUBSCRIBE: 0x03,
  INPUT: 0x04,
  RESIZE_REQUEST: 0x05,
  ACK: 0x06,
  SCROLLBACK_REQUEST: 0x07,
  INPUT_AT: 0x08,
  // server → viewer
  WELCOME: 0x81,
  SNAPSHOT: 0x82,
  DATA: 0x83,
  RESIZE: 0x84,
  TITLE: 0x85,
  EXIT: 0x86,
  STATE: 0x87,
  ERROR: 0x88,
  CLOSED: 0x89,
  SCROLLBACK: 0x8a,
  INPUT_TAKEN: 0x8b,
  INPUT_ROUTE: 0x8c,
} as const;

/** The most rows one SCROLLBACK_REQUEST may ask for. */
export const MAX_SCROLLBACK_REQUEST_ROWS = 10_000;
/** SCROLLBACK flag: no row older than these is held (what is left is dropped or never was). */
export const SCROLLBACK_OLDEST = 0x01;

/** Codes carried by ERROR frames; stable, listed in docs/viewer-protocol.md. */
export const ViewerErrorCode = {
  VERSION: 1,
  UNKNOWN_FRAME: 2,
  TOO_LARGE: 3,
  BAD_PAYLOAD: 4,
  NO_HELLO: 5,
  BAD_ACK: 6,
  NO_SUCH_SESSION: 7,
  READ_ONLY: 8,
  NOT_SUBSCRIBED: 9,
  CHANNEL_IN_USE: 10,
  INTERNAL: 11,
  NO_WRITER: 12,
} as const;
export type ViewerErrorCode = (typeof ViewerErrorCode)[keyof typeof ViewerErrorCode];

/** Why a channel ended (CLOSED frame). */
export const CloseReason = {
  UNSUBSCRIBED: 1,
  SESSION_ENDED: 2,
  PROTOCOL_VIOLATION: 3,
  SERVER_SHUTDOWN: 4,
} as const;
export type CloseReason = (typeof CloseReason)[keyof typeof CloseReason];

export type ClientKind = 'cli' | 'web' | 'script';
const CLIENT_KINDS: readonly ClientKind[] = ['cli', 'web', 'script'];

export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
const MOUSE_TRACKINGS: readonly MouseTracking[] = ['none', 'x10', 'vt200', 'drag', 'any'];
/** 'unknown' when the server's screen cannot tell (xterm.js does not expose the encoding). */
export type MouseEncoding = 'unknown' | 'default' | 'utf8' | 'sgr' | 'urxvt' | 'sgr-pixels';
const MOUSE_ENCODINGS: readonly MouseEncoding[] = ['unknown', 'default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels'];

/**
 * The input modes and cursor a viewer re-asserts after applying a snapshot:
 * the serialized screen loses some of them, and the outer terminal of
 * `tend attach` must be told them directly.
 */
export interface ScreenModes {
  cursorX: number;
  cursorY: number;
  cursorHidden: boolean;
  altScreen: boolean;
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  bracketedPaste: boolean;
  sendFocus: boolean;
  originMode: boolean;
  insertMode: boolean;
  wraparound: boolean;
  mouseTracking: MouseTracking;
  mouseEncoding: MouseEncoding;
}

/** The SNAPSHOT flags' bits, one per boolean mode (the native viewer's frames.c reads the same). */
export const MODE_FLAG_BITS: ReadonlyArray<[keyof ScreenModes, number]> = [
  ['cursorHidden', 0x001],
  ['altScreen', 0x002],
  ['applicationCursorKeys', 0x004],
  ['applicationKeypad', 0x008],
  ['bracketedPaste', 0x010],
  ['sendFocus', 0x020],
  ['originMode', 0x040],
  ['insertMode', 0x080],
  ['wraparound', 0x100],
];
/**
 * SNAPSHOT flag: the data is a view of the session rendered for the viewer's
 * own size (cols/rows are the viewer's; cursor x/y are in the view), painted
 * in place, not a screen to reset to: the session is another size, and its
 * stream would garble this viewer. Another one follows as the screen changes.
 */
export const SNAPSHOT_VIEW_FLAG = 0x200;

export interface ResumePoint {
  /**
   * The stream the seq belongs to (a SNAPSHOT's `boot`): the session's holder
   * generation, or for a session without a holder the server boot. A seq
   * means nothing in another stream.
   */
  boot: string;
  /** The stream position the viewer's terminal has parsed up to. */
  seq: number;
}

/**
 * HELLO flags: read-only; the viewer reads WELCOME's server build; the viewer
 * can type straight to the session's holder when INPUT_ROUTE says so (a
 * server that never heard of a bit ignores it).
 */
const HELLO_READ_ONLY = 0x01;
const HELLO_ASKS_BUILD = 0x02;
const HELLO_TYPES_TO_HOLDER = 0x04;

/** SUBSCRIBE flags: a resume point follows; the viewer keeps its history; repaint after the replay; a window key ends the frame. */
const SUBSCRIBE_RESUME = 0x01;
const SUBSCRIBE_KEEPS_HISTORY = 0x02;
const SUBSCRIBE_REPAINT = 0x04;
const SUBSCRIBE_WINDOW = 0x08;

/** The longest window key a SUBSCRIBE may carry (see `window` there). */
export const MAX_WINDOW_KEY_BYTES = 64;

/** Frames a viewer sends to the server. */
export type FrameFromViewer =
  | {
      type: 'hello';
      protocolVersion: number;
      clientKind: ClientKind;
      readOnly: boolean;
      /**
       * This viewer's input identity (WRITER_ID_BYTES random bytes, kept across
       * its reconnects): needed for INPUT_AT. Absent in a version-1 HELLO.
       */
      writer?: Uint8Array;
      /**
       * WELCOME may carry the server's build: a flag, not a new protocol
       * version, since viewers from before it refuse a WELCOME longer than
       * they know, and servers from before it ignore the bit.
       */
      asksBuild?: boolean;
      /** The viewer can send its INPUT_AT bytes to the holder itself, as INPUT_FROM (see INPUT_ROUTE). */
      typesToHolder?: boolean;
    }
  | {
      type: 'subscribe';
      channel: number;
      sessionId: string;
      resume?: ResumePoint;
      cols: number;
      rows: number;
      /**
       * The viewer's terminal holds this session's history already (`tend
       * attach` painted it before, into the outer terminal's own scrollback):
       * its SNAPSHOTs carry the screen alone, so no row reaches that history twice.
       */
      keepsHistory?: boolean;
      /** The viewer drew over its screen while away: after the replay, a screen-only SNAPSHOT repaints it. */
      repaint?: boolean;
      /**
       * Names the outer terminal window the viewer paints into (1 to
       * MAX_WINDOW_KEY_BYTES bytes, opaque to the server; `tend attach` makes
       * it of the tty and the process that owns it). The server remembers, per
       * window, the history rows it has streamed there, and a later SNAPSHOT
       * to the same window carries only the rows after them.
       */
      window?: string;
    }
  | { type: 'unsubscribe'; channel: number }
  | { type: 'input'; channel: number; data: Uint8Array }
  /**
   * This viewer's input bytes `at` .. at + data.length − 1 to the channel's
   * session (counted per session, from 0, across reconnects): a resend of
   * bytes the session has is dropped, so a viewer may send again whatever
   * INPUT_TAKEN has not covered yet. No bytes: only asks for INPUT_TAKEN.
   */
  | { type: 'input-at'; channel: number; at: number; data: Uint8Array }
  | { type: 'resize-request'; channel: number; cols: number; rows: number }
  | { type: 'ack'; channel: number; seq: number }
  /**
   * Rows of history older than row `beforeRow` (a row number from an earlier
   * SCROLLBACK; 0: older than the last snapshot's top row), at most `count`.
   */
  | { type: 'scrollback-request'; channel: number; beforeRow: number; count: number };

/** Frames the server sends to a viewer. */
export type FrameFromServer =
  | {
      type: 'welcome';
      /** The newest version the server speaks. */
      protocolVersion: number;
      serverBoot: string;
      serverVersion: string;
      /** The server's build id (src/common/version.ts): sent to a HELLO that asks for it, by a server that knows it. */
      serverBuild?: string;
    }
  | {
      type: 'snapshot';
      channel: number;
      boot: string;
      /** The stream position the screen was rendered at; DATA continues from here. */
      seq: number;
      cols: number;
      rows: number;
      modes: ScreenModes;
      /** Applied as reset + data in one terminal write (a view: painted in place). */
      data: string;
      /** A view for this viewer's size (SNAPSHOT_VIEW_FLAG); absent for a snapshot of the session itself. */
      view?: true;
    }
  /** seq is the stream position after these bytes. */
  | { type: 'data'; channel: number; seq: number; data: Uint8Array }
  | { type: 'resize'; channel: number; cols: number; rows: number }
  | { type: 'title'; channel: number; title: string }
  | { type: 'exit'; channel: number; code: number; signal: number }
  | { type: 'state'; channel: number; state: Record<string, unknown> }
  | { type: 'error'; channel: number; code: number; message: string }
  | { type: 'closed'; channel: number; reason: CloseReason; message: string }
  /**
   * The answer to a SCROLLBACK_REQUEST: rows `firstRow` .. firstRow + rows − 1,
   * oldest first, as lines of text with SGR (CR LF between them); `oldest`
   * when no older row is held, and then `dropped` rows past them were
   * dropped by the server's memory budget (shown as incomplete, never as the
   * start of the output).
   */
  | { type: 'scrollback'; channel: number; firstRow: number; rows: number; dropped: number; oldest: boolean; text: string }
  /**
   * How many of this viewer's input bytes to the channel's session the
   * session's holder has taken (so they outlive the server): INPUT_AT bytes
   * below `total` need never be sent again.
   */
  | { type: 'input-taken'; channel: number; total: number }
  /**
   * Where this viewer's counted input to the channel's session goes from now
   * on: to the holder listening at `holderSocket` (holder protocol INPUT_FROM,
   * the same writer and numbers), or, when empty, to the server as INPUT_AT.
   * Only to a viewer whose HELLO said TYPES_TO_HOLDER.
   */
  | { type: 'input-route'; channel: number; holderSocket: string };

export type ViewerFrameErrorCode =
  | 'TEND_ERR_FRAME_TOO_LARGE'
  | 'TEND_ERR_FRAME_WRONG_DIRECTION'
  | 'TEND_ERR_FRAME_UNKNOWN'
  | 'TEND_ERR_FRAME_BAD_PAYLOAD'
  | 'TEND_ERR_FRAME_BAD_FIELD';

/** A frame that cannot be encoded or decoded; `.code` is stable, the message says what. */
export class ViewerFrameError extends Error {
  override readonly name = 'ViewerFrameError';
  constructor(
    readonly code: ViewerFrameErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The ERROR-frame code a server answers this decoding failure with. */
  get wireCode(): ViewerErrorCode {
    switch (this.code) {
      case 'TEND_ERR_FRAME_TOO_LARGE':
        return ViewerErrorCode.TOO_LARGE;
      case 'TEND_ERR_FRAME_WRONG_DIRECTION':
      case 'TEND_ERR_FRAME_UNKNOWN':
        return ViewerErrorCode.UNKNOWN_FRAME;
      default:
        return ViewerErrorCode.BAD_PAYLOAD;
    }
  }
}

export interface DecodeOptions {
  /** Frames longer than this are refused before any field is read. */
  maxFrameBytes?: number;
}

const utf8Encoder = new TextEncoder();
// fatal: a broken UTF-8 name is a bad frame, not a string with U+FFFD in it.
// ignoreBOM: a text that starts with U+FEFF (a title, a screen line) keeps it;
// by default the decoder would drop it as a byte-order mark (found by fuzzing).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------- writing

/** Appends fields to a growing frame; sizes are known up front, so one allocation. */
class FieldWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private pos = 0;

  /** A new frame, or one written into `into` from `at` (room for the header and payload is the caller's). */
  constructor(type: number, channel: number, payloadBytes: number, into?: Uint8Array, at = 0) {
    this.bytes = into ?? new Uint8Array(FRAME_HEADER_BYTES + payloadBytes);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.pos = at;
    this.u8(type);
    this.u32(checkU32('channel', channel));
  }

  u8(v: number): void {
    this.view.setUint8(this.pos, v);
    this.pos += 1;
  }
  u16(v: number): void {
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }
  u32(v: number): void {
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  i32(v: number): void {
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
  }
  seq(v: number): void {
    checkSeq('seq', v);
    this.view.setUint32(this.pos, v % 0x1_0000_0000, true);
    this.view.setUint32(this.pos + 4, Math.floor(v / 0x1_0000_0000), true);
    this.pos += 8;
  }
  /** A u16-length-prefixed UTF-8 name. */
  name(encoded: Uint8Array): void {
    this.u16(encoded.length);
    this.raw(encoded);
  }
  raw(data: Uint8Array): void {
    this.bytes.set(data, this.pos);
    this.pos += data.length;
  }
}

function badField(message: string): never {
  throw new ViewerFrameError('TEND_ERR_FRAME_BAD_FIELD', message);
}

function checkU32(what: string, v: number): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) badField(`${what} must be an integer in 0..2^32-1, got ${v}`);
  return v;
}

function checkSeq(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) badField(`${what} must be a non-negative safe integer, got ${v}`);
}

function checkSize(cols: number, rows: number): void {
  if (!Number.isInteger(cols) || cols < MIN_COLS || cols > MAX_COLS) badField(`cols must be ${MIN_COLS}..${MAX_COLS}, got ${cols}`);
  if (!Number.isInteger(rows) || rows < MIN_ROWS || rows > MAX_ROWS) badField(`rows must be ${MIN_ROWS}..${MAX_ROWS}, got ${rows}`);
}

/** Why a window key of `bytes` bytes is refused (null: it is not). */
function windowKeyProblem(bytes: number): string | null {
  return bytes === 0 || bytes > MAX_WINDOW_KEY_BYTES ? `window is ${bytes} bytes, it must be 1 to ${MAX_WINDOW_KEY_BYTES}` : null;
}

function encodeWindowKey(key: string): Uint8Array {
  const bytes = utf8Encoder.encode(key);
  const problem = windowKeyProblem(bytes.length);
  if (problem !== null) badField(problem);
  return bytes;
}

function encodeName(what: string, s: string): Uint8Array {
  const bytes = utf8Encoder.encode(s);
  if (bytes.length > MAX_NAME_BYTES) badField(`${what} is ${bytes.length} bytes, the limit is ${MAX_NAME_BYTES}`);
  return bytes;
}

function checkU16(what: string, v: number): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) badField(`${what} must be an integer in 0..65535, got ${v}`);
  return v;
}

function checkI32(what: string, v: number): number {
  if (!Number.isInteger(v) || v < -0x8000_0000 || v > 0x7fff_ffff) badField(`${what} must be a 32-bit integer, got ${v}`);
  return v;
}

/** Encodes a frame a viewer sends. */
export function encodeFrameToServer(frame: FrameFromViewer): Uint8Array {
  switch (frame.type) {
    case 'hello': {
      if (frame.writer !== undefined && frame.writer.length !== WRITER_ID_BYTES) badField(`writer must be ${WRITER_ID_BYTES} bytes, got ${frame.writer.length}`);
      const w = new FieldWriter(FrameType.HELLO, 0, 4 + (frame.writer?.length ?? 0));
      w.u16(checkU16('protocolVersion', frame.protocolVersion));
      const kind = CLIENT_KINDS.indexOf(frame.clientKind);
      if (kind < 0) badField(`clientKind must be one of ${CLIENT_KINDS.join(', ')}`);
      w.u8(kind + 1);
      w.u8((frame.readOnly ? HELLO_READ_ONLY : 0) | (frame.asksBuild ? HELLO_ASKS_BUILD : 0) | (frame.typesToHolder ? HELLO_TYPES_TO_HOLDER : 0));
      if (frame.writer !== undefined) w.raw(frame.writer);
      return w.bytes;
    }
    case 'subscribe': {
      checkSize(frame.cols, frame.rows);
      const session = encodeName('sessionId', frame.sessionId);
      const boot = encodeName('resume.boot', frame.resume?.boot ?? '');
      const window = frame.window === undefined ? null : encodeWindowKey(frame.window);
      const w = new FieldWriter(FrameType.SUBSCRIBE, frame.channel, 2 + 2 + 1 + 8 + 2 + boot.length + 2 + session.length + (window === null ? 0 : 2 + window.length));
      w.u16(frame.cols);
      w.u16(frame.rows);
      w.u8(
        (frame.resume ? SUBSCRIBE_RESUME : 0) |
          (frame.keepsHistory ? SUBSCRIBE_KEEPS_HISTORY : 0) |
          (frame.repaint ? SUBSCRIBE_REPAINT : 0) |
          (window !== null ? SUBSCRIBE_WINDOW : 0),
      );
      w.seq(frame.resume?.seq ?? 0);
      w.name(boot);
      w.name(session);
      if (window !== null) w.name(window);
      return w.bytes;
    }
    case 'unsubscribe':
      return new FieldWriter(FrameType.UNSUBSCRIBE, frame.channel, 0).bytes;
    case 'input': {
      const w = new FieldWriter(FrameType.INPUT, frame.channel, frame.data.length);
      w.raw(frame.data);
      return w.bytes;
    }
    case 'input-at': {
      const w = new FieldWriter(FrameType.INPUT_AT, frame.channel, 8 + frame.data.length);
      w.seq(frame.at);
      w.raw(frame.data);
      return w.bytes;
    }
    case 'resize-request': {
      checkSize(frame.cols, frame.rows);
      const w = new FieldWriter(FrameType.RESIZE_REQUEST, frame.channel, 4);
      w.u16(frame.cols);
      w.u16(frame.rows);
      return w.bytes;
    }
    case 'ack': {
      const w = new FieldWriter(FrameType.ACK, frame.channel, 8);
      w.seq(frame.seq);
      return w.bytes;
    }
    case 'scrollback-request': {
      if (!Number.isInteger(frame.count) || frame.count < 1 || frame.count > MAX_SCROLLBACK_REQUEST_ROWS) {
        badField(`count must be 1..${MAX_SCROLLBACK_REQUEST_ROWS}`);
      }
      const w = new FieldWriter(FrameType.SCROLLBACK_REQUEST, frame.channel, 12);
      w.seq(frame.beforeRow);
      w.u32(frame.count);
      return w.bytes;
    }
  }
}

/** The size of a DATA frame carrying `length` stream bytes. */
export function dataFrameBytes(length: number): number {
  return FRAME_HEADER_BYTES + 8 + length;
}

/**
 * Writes a DATA frame into `into` at `at` (dataFrameBytes of room): the
 * server builds a flood's frames in buffers it reuses, where a new array per
 * frame would be fresh memory, zeroed and faulted in page by page.
 */
export function writeDataFrame(into: Uint8Array, at: number, frame: Extract<FrameFromServer, { type: 'data' }>): void {
  const w = new FieldWriter(FrameType.DATA, frame.channel, 8 + frame.data.length, into, at);
  w.seq(frame.seq);
  w.raw(frame.data);
}

/** Encodes a frame the server sends. */
export function encodeFrameToViewer(frame: FrameFromServer): Uint8Array {
  switch (frame.type) {
    case 'welcome': {
      const boot = encodeName('serverBoot', frame.serverBoot);
      const version = encodeName('serverVersion', frame.serverVersion);
      const build = frame.serverBuild === undefined ? null : encodeName('serverBuild', frame.serverBuild);
      const w = new FieldWriter(FrameType.WELCOME, 0, 2 + 2 + boot.length + 2 + version.length + (build === null ? 0 : 2 + build.length));
      w.u16(checkU16('protocolVersion', frame.protocolVersion));
      w.name(boot);
      w.name(version);
      if (build !== null) w.name(build);
      return w.bytes;
    }
    case 'snapshot': {
      checkSize(frame.cols, frame.rows);
      const boot = encodeName('boot', frame.boot);
      const data = utf8Encoder.encode(frame.data);
      const m = frame.modes;
      const w = new FieldWriter(FrameType.SNAPSHOT, frame.channel, 8 + 2 + 2 + 2 + 2 + 2 + 1 + 1 + 2 + boot.length + data.length);
      w.seq(frame.seq);
      w.u16(frame.cols);
      w.u16(frame.rows);
      w.u16(checkU16('modes.cursorX', m.cursorX));
      w.u16(checkU16('modes.cursorY', m.cursorY));
      let flags = 0;
      for (const [key, bit] of MODE_FLAG_BITS) if (m[key]) flags |= bit;
      if (frame.view) flags |= SNAPSHOT_VIEW_FLAG;
      w.u16(flags);
      const tracking = MOUSE_TRACKINGS.indexOf(m.mouseTracking);
      if (tracking < 0) badField(`modes.mouseTracking must be one of ${MOUSE_TRACKINGS.join(', ')}`);
      const encoding = MOUSE_ENCODINGS.indexOf(m.mouseEncoding);
      if (encoding < 0) badField(`modes.mouseEncoding must be one of ${MOUSE_ENCODINGS.join(', ')}`);
      w.u8(tracking);
      w.u8(encoding);
      w.name(boot);
      w.raw(data);
      return w.bytes;
    }
    case 'data': {
      const bytes = new Uint8Array(dataFrameBytes(frame.data.length));
      writeDataFrame(bytes, 0, frame);
      return bytes;
    }
    case 'resize': {
      checkSize(frame.cols, frame.rows);
      const w = new FieldWriter(FrameType.RESIZE, frame.channel, 4);
      w.u16(frame.cols);
      w.u16(frame.rows);
      return w.bytes;
    }
    case 'title':
      return textFrame(FrameType.TITLE, frame.channel, [], frame.title);
    case 'exit': {
      const w = new FieldWriter(FrameType.EXIT, frame.channel, 8);
      w.i32(checkI32('code', frame.code));
      w.i32(checkI32('signal', frame.signal));
      return w.bytes;
    }
    case 'state':
      if (typeof frame.state !== 'object' || frame.state === null || Array.isArray(frame.state)) {
        badField('state must be a JSON object');
      }
      return textFrame(FrameType.STATE, frame.channel, [], JSON.stringify(frame.state));
    case 'error':
      return textFrame(FrameType.ERROR, frame.channel, [[2, checkU16('code', frame.code)]], frame.message);
    case 'closed':
      return textFrame(FrameType.CLOSED, frame.channel, [[1, frame.reason]], frame.message);
    case 'scrollback': {
      const text = utf8Encoder.encode(frame.text);
      const w = new FieldWriter(FrameType.SCROLLBACK, frame.channel, 8 + 4 + 4 + 1 + text.length);
      w.seq(frame.firstRow);
      w.u32(checkU32('rows', frame.rows));
      w.u32(checkU32('dropped', frame.dropped));
      w.u8(frame.oldest ? SCROLLBACK_OLDEST : 0);
      w.raw(text);
      return w.bytes;
    }
    case 'input-taken': {
      const w = new FieldWriter(FrameType.INPUT_TAKEN, frame.channel, 8);
      w.seq(frame.total);
      return w.bytes;
    }
    case 'input-route': {
      const socket = encodeName('holderSocket', frame.holderSocket);
      const w = new FieldWriter(FrameType.INPUT_ROUTE, frame.channel, 2 + socket.length);
      w.name(socket);
      return w.bytes;
    }
  }
}

/** A frame of small unsigned prefix fields (byte width, value) then UTF-8 text to the end. */
function textFrame(type: number, channel: number, prefix: Array<[1 | 2, number]>, text: string): Uint8Array {
  const bytes = utf8Encoder.encode(text);
  const w = new FieldWriter(type, channel, prefix.reduce((n, [width]) => n + width, 0) + bytes.length);
  for (const [width, value] of prefix) {
    if (width === 1) w.u8(value);
    else w.u16(value);
  }
  w.raw(bytes);
  return w.bytes;
}

// ---------------------------------------------------------------- reading

/**
 * Reads one frame's fields in order; every read checks the bytes are there
 * first. A WebSocket message is one whole frame, so nothing here splits a
 * stream (that is holder-client's FrameReader, for the holder's socket).
 */
class FieldReader {
  private readonly view: DataView;
  private pos = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.length - this.pos;
  }
  private need(n: number): void {
    if (this.bytes.length - this.pos < n) {
      bad(`${this.what} frame is truncated: needs ${this.pos + n} bytes, has ${this.bytes.length}`);
    }
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  seq(): number {
    this.need(8);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    // 2^53 − 1 has 21 bits in the high word; anything more would silently round.
    if (hi > 0x1f_ffff) bad(`${this.what} seq is past 2^53 - 1`);
    return hi * 0x1_0000_0000 + lo;
  }
  name(field: string): string {
    const n = this.u16();
    if (n > MAX_NAME_BYTES) bad(`${this.what} ${field} is ${n} bytes, the limit is ${MAX_NAME_BYTES}`);
    this.need(n);
    const s = utf8(this.bytes.subarray(this.pos, this.pos + n), `${this.what} ${field}`);
    this.pos += n;
    return s;
  }
  /** The rest of the frame, as a view (no copy). */
  rest(): Uint8Array {
    const r = this.bytes.subarray(this.pos);
    this.pos = this.bytes.length;
    return r;
  }
  restText(field: string): string {
    return utf8(this.rest(), `${this.what} ${field}`);
  }
  end(): void {
    if (this.pos !== this.bytes.length) bad(`${this.what} frame has ${this.bytes.length - this.pos} bytes too many`);
  }
}

function bad(message: string): never {
  throw new ViewerFrameError('TEND_ERR_FRAME_BAD_PAYLOAD', message);
}

function utf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    bad(`${what} is not valid UTF-8`);
  }
}

function readHeader(bytes: Uint8Array, options: DecodeOptions | undefined, defaultMax: number, fromServer: boolean) {
  const max = options?.maxFrameBytes ?? defaultMax;
  if (bytes.length > max) {
    throw new ViewerFrameError('TEND_ERR_FRAME_TOO_LARGE', `frame of ${bytes.length} bytes is over the ${max}-byte limit`);
  }
  if (bytes.length < FRAME_HEADER_BYTES) bad(`frame of ${bytes.length} bytes is shorter than its ${FRAME_HEADER_BYTES}-byte header`);
  const type = bytes[0]!;
  if (((type & SERVER_DIRECTION_BIT) !== 0) !== fromServer) {
    throw new ViewerFrameError(
      'TEND_ERR_FRAME_WRONG_DIRECTION',
      fromServer
        ? `frame type 0x${type.toString(16)} is sent by viewers, not by a server`
        : `frame type 0x${type.toString(16)} is sent by the server, not by a viewer`,
    );
  }
  const r = new FieldReader(bytes, `0x${type.toString(16)}`);
  r.u8();
  const channel = r.u32();
  return { type, channel, r };
}

function checkedSize(r: FieldReader): { cols: number; rows: number } {
  const cols = r.u16();
  const rows = r.u16();
  if (cols < MIN_COLS || cols > MAX_COLS || rows < MIN_ROWS || rows > MAX_ROWS) {
    bad(`size ${cols}x${rows} is outside ${MIN_COLS}..${MAX_COLS} x ${MIN_ROWS}..${MAX_ROWS}`);
  }
  return { cols, rows };
}

function socketLevel(channel: number, name: string): void {
  if (channel !== 0) bad(`${name} belongs to the socket and travels on channel 0, not ${channel}`);
}

/** Decodes a frame a viewer sent (the server's side). */
export function decodeFrameFromViewer(bytes: Uint8Array, options?: DecodeOptions): FrameFromViewer {
  const { type, channel, r } = readHeader(bytes, options, DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES, false);
  let frame: FrameFromViewer;
  switch (type) {
    case FrameType.HELLO: {
      socketLevel(channel, 'HELLO');
      const protocolVersion = r.u16();
      const kind = CLIENT_KINDS[r.u8() - 1];
      if (kind === undefined) bad('HELLO has an unknown client kind');
      const flags = r.u8();
      frame = { type: 'hello', protocolVersion, clientKind: kind, readOnly: (flags & HELLO_READ_ONLY) !== 0 };
      if ((flags & HELLO_ASKS_BUILD) !== 0) frame.asksBuild = true;
      if ((flags & HELLO_TYPES_TO_HOLDER) !== 0) frame.typesToHolder = true;
      // Version 2 adds the writer at the end; a 4-byte HELLO is still whole.
      const writer = r.rest();
      if (writer.length !== 0 && writer.length !== WRITER_ID_BYTES) bad(`HELLO writer is ${writer.length} bytes, not ${WRITER_ID_BYTES}`);
      if (writer.length === WRITER_ID_BYTES) frame.writer = writer.slice();
      break;
    }
    case FrameType.SUBSCRIBE: {
      const { cols, rows } = checkedSize(r);
      const flags = r.u8();
      const seq = r.seq();
      const boot = r.name('resume boot');
      const sessionId = r.name('session id');
      frame = { type: 'subscribe', channel, sessionId, cols, rows };
      if ((flags & SUBSCRIBE_RESUME) !== 0) frame.resume = { boot, seq };
      if ((flags & SUBSCRIBE_KEEPS_HISTORY) !== 0) frame.keepsHistory = true;
      if ((flags & SUBSCRIBE_REPAINT) !== 0) frame.repaint = true;
      if ((flags & SUBSCRIBE_WINDOW) !== 0) {
        const window = r.name('window');
        const problem = windowKeyProblem(utf8Encoder.encode(window).length);
        if (problem !== null) bad(`SUBSCRIBE ${problem}`);
        frame.window = window;
      }
      break;
    }
    case FrameType.UNSUBSCRIBE:
      frame = { type: 'unsubscribe', channel };
      break;
    case FrameType.INPUT:
      // A copy, so the caller may keep it after the socket reuses its buffer.
      frame = { type: 'input', channel, data: r.rest().slice() };
      break;
    case FrameType.INPUT_AT: {
      const at = r.seq();
      const data = r.rest().slice();
      // The last byte's position must be a safe integer too, or counts would round.
      if (!Number.isSafeInteger(at + data.length)) bad('INPUT_AT runs past 2^53 - 1');
      frame = { type: 'input-at', channel, at, data };
      break;
    }
    case FrameType.RESIZE_REQUEST:
      frame = { type: 'resize-request', channel, ...checkedSize(r) };
      break;
    case FrameType.ACK:
      frame = { type: 'ack', channel, seq: r.seq() };
      break;
    case FrameType.SCROLLBACK_REQUEST: {
      const beforeRow = r.seq();
      const count = r.u32();
      if (count < 1 || count > MAX_SCROLLBACK_REQUEST_ROWS) bad(`SCROLLBACK_REQUEST count must be 1..${MAX_SCROLLBACK_REQUEST_ROWS}`);
      frame = { type: 'scrollback-request', channel, beforeRow, count };
      break;
    }
    default:
      throw new ViewerFrameError('TEND_ERR_FRAME_UNKNOWN', `unknown viewer frame type 0x${type.toString(16)}`);
  }
  r.end();
  return frame;
}

/** Decodes a frame the server sent (the viewer's side). */
export function decodeFrameFromServer(bytes: Uint8Array, options?: DecodeOptions): FrameFromServer {
  const { type, channel, r } = readHeader(bytes, options, DEFAULT_MAX_FRAME_FROM_SERVER_BYTES, true);
  let frame: FrameFromServer;
  switch (type) {
    case FrameType.WELCOME: {
      socketLevel(channel, 'WELCOME');
      const protocolVersion = r.u16();
      frame = { type: 'welcome', protocolVersion, serverBoot: r.name('server boot'), serverVersion: r.name('server version') };
      if (r.remaining > 0) frame.serverBuild = r.name('server build');
      // Fields a later server appends are ignored, so WELCOME can grow without another flag.
      r.rest();
      break;
    }
    case FrameType.SNAPSHOT: {
      const seq = r.seq();
      const { cols, rows } = checkedSize(r);
      const cursorX = r.u16();
      const cursorY = r.u16();
      const flags = r.u16();
      const mouseTracking = MOUSE_TRACKINGS[r.u8()];
      const mouseEncoding = MOUSE_ENCODINGS[r.u8()];
      if (mouseTracking === undefined || mouseEncoding === undefined) bad('SNAPSHOT has an unknown mouse mode');
      const modes = { cursorX, cursorY, mouseTracking, mouseEncoding } as ScreenModes;
      for (const [key, bit] of MODE_FLAG_BITS) (modes as unknown as Record<string, boolean>)[key] = (flags & bit) !== 0;
      const boot = r.name('boot');
      frame = { type: 'snapshot', channel, boot, seq, cols, rows, modes, data: r.restText('screen data') };
      if ((flags & SNAPSHOT_VIEW_FLAG) !== 0) frame.view = true;
      break;
    }
    case FrameType.DATA: {
      const seq = r.seq();
      frame = { type: 'data', channel, seq, data: r.rest().slice() };
      break;
    }
    case FrameType.RESIZE:
      frame = { type: 'resize', channel, ...checkedSize(r) };
      break;
    case FrameType.TITLE:
      frame = { type: 'title', channel, title: r.restText('title') };
      break;
    case FrameType.EXIT:
      frame = { type: 'exit', channel, code: r.i32(), signal: r.i32() };
      break;
    case FrameType.STATE: {
      let state: unknown;
      try {
        state = JSON.parse(r.restText('state'));
      } catch (err) {
        if (err instanceof ViewerFrameError) throw err;
        bad('STATE is not valid JSON');
      }
      if (typeof state !== 'object' || state === null || Array.isArray(state)) bad('STATE is not a JSON object');
      frame = { type: 'state', channel, state: state as Record<string, unknown> };
      break;
    }
    case FrameType.ERROR: {
      const code = r.u16();
      frame = { type: 'error', channel, code, message: r.restText('message') };
      break;
    }
    case FrameType.CLOSED: {
      const reason = r.u8();
      if (!Object.values(CloseReason).includes(reason as CloseReason)) bad(`CLOSED has an unknown reason ${reason}`);
      frame = { type: 'closed', channel, reason: reason as CloseReason, message: r.restText('message') };
      break;
    }
    case FrameType.SCROLLBACK: {
      const firstRow = r.seq();
      const rows = r.u32();
      const dropped = r.u32();
      const oldest = (r.u8() & SCROLLBACK_OLDEST) !== 0;
      frame = { type: 'scrollback', channel, firstRow, rows, dropped, oldest, text: r.restText('scrollback text') };
      break;
    }
    case FrameType.INPUT_TAKEN:
      frame = { type: 'input-taken', channel, total: r.seq() };
      break;
    case FrameType.INPUT_ROUTE:
      frame = { type: 'input-route', channel, holderSocket: r.name('holder socket') };
      break;
    default:
      throw new ViewerFrameError('TEND_ERR_FRAME_UNKNOWN', `unknown server frame type 0x${type.toString(16)}`);
  }
  r.end();
  return frame;
}

// ---------------------------------------------------------------- input

/**
 * Splits input into pieces of at most maxBytes for INPUT frames without cutting
 * a UTF-8 sequence in two, so each frame's bytes stand alone (a Korean syllable
 * or an emoji committed by an IME never straddles frames). Bytes that are not
 * valid UTF-8 are cut by length alone: they are passed through, not judged.
 */
export function splitInput(data: Uint8Array, maxBytes = MAX_INPUT_BYTES_PER_FRAME): Uint8Array[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) badField('maxBytes must be at least 4 (one UTF-8 character)');
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (data.length - start > maxBytes) {
    let end = start + maxBytes;
    // Step back over continuation bytes (10xxxxxx) to the lead byte of the
    // character that would be cut; at most 3 of them in valid UTF-8.
    let back = 0;
    while (back < 3 && (data[end - back]! & 0xc0) === 0x80) back++;
    if (end - back > start) end -= back;
    pieces.push(data.subarray(start, end));
    start = end;
  }
  if (start < data.length || pieces.length === 0) pieces.push(data.subarray(start));
  return pieces;
}
