// The holder wire protocol in TypeScript: the mirror of holder/protocol.h
// (constants, frame types, error codes, the STATE layout), encoders for the
// frames a controller sends and decoders for the payloads a holder sends.
//
// holder-frames.test.ts parses protocol.h and checks every constant here
// against it, so the two cannot drift: change both together.
//
// This module uses only Uint8Array/DataView (no Node APIs): the browser may
// import src/protocol.

/** What this side says in HELLO first; a holder started by an older tend may speak only an older version. */
export const PROTOCOL_VERSION = 5;
/** The lowest version a controller steps down to when a holder refuses its HELLO with ERROR VERSION. */
export const OLDEST_PROTOCOL_VERSION = 1;
/** The first version with INPUT_FROM / INPUT_TAKEN (input acknowledged once the holder has it). */
export const INPUT_ACKS_VERSION = 2;
/** The first version whose holder can hand over to a new binary in place (EXEC). */
export const EXEC_PROTOCOL_VERSION = 3;
/**
 * The first version whose holder takes INPUT_FROM from a connection without the
 * lease: a viewer may type straight to the holder (docs/protocol.md, typists).
 */
export const TYPIST_PROTOCOL_VERSION = 4;
/**
 * The first version whose holder copies a connection without the lease the
 * output's small pieces (WATCH): a typist sees its echo without the server.
 */
export const WATCH_PROTOCOL_VERSION = 5;
/** A PTY read longer than this is not copied to watchers (a flood). */
export const WATCH_PIECE_MAX_BYTES = 2048;
/** EXEC's path is at most this many bytes. */
export const EXEC_PATH_MAX_BYTES = 4095;
export const FRAME_HEADER_BYTES = 5;
/** Holder -> controller payloads (OUTPUT, REPLAY) are at most this long. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Controller -> holder payloads are at most this long; INPUT is chunked to fit. */
export const MAX_INBOUND_PAYLOAD_BYTES = 64 * 1024;
export const MIN_COLS = 1;
export const MIN_ROWS = 1;
export const MAX_COLS = 1000;
export const MAX_ROWS = 1000;
export const GENERATION_BYTES = 16;
/** The holder binary's build id at the end of a version-3 STATE: ASCII, NUL-padded. */
export const BUILD_ID_BYTES = 16;
/** A STATE from a holder of version 1 or 2 (no build id): the shortest a reader accepts. */
export const STATE_V1_PAYLOAD_BYTES = 69;
export const STATE_PAYLOAD_BYTES = STATE_V1_PAYLOAD_BYTES + BUILD_ID_BYTES;
/** A writer: 16 random bytes naming one source of input to one session. */
export const WRITER_ID_BYTES = 16;
/** INPUT_FROM's writer and u64 position, before its bytes. */
export const INPUT_FROM_PREFIX_BYTES = WRITER_ID_BYTES + 8;
/** The most bytes one INPUT_FROM frame carries. */
export const MAX_INPUT_FROM_BYTES = MAX_INBOUND_PAYLOAD_BYTES - INPUT_FROM_PREFIX_BYTES;
export const INPUT_TAKEN_PAYLOAD_BYTES = WRITER_ID_BYTES + 8;
/** A holder remembers this many writers, those used most recently; a forgotten one starts over where it says. */
export const WRITERS_REMEMBERED = 64;

export const FrameType = {
  HELLO: 0x01,
  STATE_REQ: 0x02,
  STATE: 0x03,
  ACQUIRE: 0x10,
  ACQUIRED: 0x11,
  DENIED: 0x12,
  RELEASE: 0x13,
  DUMP_SINCE: 0x20,
  REPLAY: 0x21,
  OUTPUT: 0x22,
  INPUT: 0x23,
  INPUT_FROM: 0x24,
  INPUT_TAKEN: 0x25,
  WATCH: 0x26,
  RESIZE: 0x30,
  SIGNAL: 0x31,
  REDRAW: 0x32,
  KILL: 0x33,
  PING: 0x34,
  PONG: 0x35,
  EXIT: 0x36,
  EXEC: 0x37,
  EXEC_FAILED: 0x38,
  ERROR: 0x3f,
} as const;
export type FrameTypeName = keyof typeof FrameType;
export type FrameTypeValue = (typeof FrameType)[FrameTypeName];

export const ErrorCode = {
  VERSION: 1,
  UNKNOWN_FRAME: 2,
  TOO_LARGE: 3,
  BAD_PAYLOAD: 4,
  NOT_CONTROLLER: 5,
  BAD_SIZE: 6,
  BAD_OFFSET: 7,
  NO_HELLO: 8,
  TRUNCATED: 9,
  BUSY: 10,
} as const;
export type ErrorCodeName = keyof typeof ErrorCode;

export const StateFlag = {
  EXITED: 0x01,
  LEASED: 0x02,
  YOU_LEASE: 0x04,
} as const;

export const ReplayFlag = {
  GAP: 0x01,
  END: 0x02,
} as const;

/** The frame types a holder sends; anything else arriving from a holder is a protocol error. */
export const HOLDER_TO_CONTROLLER_TYPES: ReadonlySet<number> = new Set<number>([
  FrameType.STATE,
  FrameType.ACQUIRED,
  FrameType.DENIED,
  FrameType.REPLAY,
  FrameType.OUTPUT,
  FrameType.INPUT_TAKEN,
  FrameType.PONG,
  FrameType.EXIT,
  FrameType.EXEC_FAILED,
  FrameType.ERROR,
]);

/**
 * The fixed prefix of each stream frame: OUTPUT's offset (u64), REPLAY's
 * offset and flags. A reader may hand a stream frame's body on in pieces
 * once its prefix is in (holder-client/frame-reader.ts).
 */
export const STREAM_FRAME_PREFIX_BYTES: ReadonlyMap<number, number> = new Map<number, number>([
  [FrameType.REPLAY, 9],
  [FrameType.OUTPUT, 8],
]);

const frameTypeNames = new Map<number, FrameTypeName>(
  Object.entries(FrameType).map(([name, value]) => [value, name as FrameTypeName]),
);
const errorCodeNames = new Map<number, ErrorCodeName>(
  Object.entries(ErrorCode).map(([name, value]) => [value, name as ErrorCodeName]),
);

/** 'OUTPUT' for 0x22, 'type 0x7e' for a type the protocol does not know. */
export function frameTypeName(type: number): string {
  return frameTypeNames.get(type) ?? `type 0x${type.toString(16).padStart(2, '0')}`;
}

/** 'BAD_SIZE' for 6, 'code 99' for a code this side does not know. */
export function errorCodeName(code: number): string {
  return errorCodeNames.get(code) ?? `code ${code}`;
}

/**
 * Stable codes for violations of the protocol seen on this side. A holder's
 * own ERROR frames are not thrown: they arrive as a decoded 'error' message.
 */
export type HolderProtocolErrorCode =
  | 'TEND_ERR_FRAME_TOO_LARGE'
  | 'TEND_ERR_UNKNOWN_FRAME'
  | 'TEND_ERR_BAD_PAYLOAD'
  | 'TEND_ERR_UNSAFE_OFFSET'
  | 'TEND_ERR_TRUNCATED'
  | 'TEND_ERR_STREAM_DISCONTINUITY'
  | 'TEND_ERR_READER_FAILED';

export class HolderProtocolError extends Error {
  override readonly name = 'HolderProtocolError';
  constructor(
    readonly code: HolderProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// ---- decoded holder -> controller messages ----

export interface HolderState {
  type: 'state';
  version: number;
  /** 32 lowercase hex digits; offsets mean nothing without it. */
  generation: string;
  /** Oldest offset a DUMP_SINCE can still return (a safe boundary). */
  ringStart: number;
  /** Count of every byte ever read from the PTY. */
  offset: number;
  childPid: number;
  /** Foreground process group of the PTY, 0 if unknown. */
  fgPgid: number;
  cols: number;
  rows: number;
  exited: boolean;
  leased: boolean;
  youLease: boolean;
  /** Valid when exited; -1 when the child was killed by a signal. */
  exitCode: number;
  /** Valid when exited; 0 when the child exited normally. */
  exitSignal: number;
  startedAtMs: number;
  ringCapacity: number;
  /** The holder binary's build id (what `tend-holder --version` says); null from a holder before version 3. */
  build: string | null;
}

export interface AcquiredMessage {
  type: 'acquired';
}
export interface DeniedMessage {
  type: 'denied';
  reason: string;
}
export interface ReplayMessage {
  type: 'replay';
  /** Offset of the first byte of `bytes`. */
  offset: number;
  /** The requested offset had left the ring: this replay starts later than asked. */
  gap: boolean;
  /** The last frame of this replay; OUTPUT follows. */
  end: boolean;
  bytes: Uint8Array;
}
export interface OutputMessage {
  type: 'output';
  /** Offset of the first byte of `bytes`. */
  offset: number;
  bytes: Uint8Array;
}
/** The count of a writer's bytes the holder has taken, answering INPUT_FROM. */
export interface InputTakenMessage {
  type: 'input-taken';
  /** WRITER_ID_BYTES bytes, a copy. */
  writer: Uint8Array;
  total: number;
}
export interface PongMessage {
  type: 'pong';
  token: bigint;
}
export interface ExitMessage {
  type: 'exit';
  /** -1 when killed by a signal. */
  code: number;
  /** 0 when the child exited normally. */
  signal: number;
}
/** The holder refused an EXEC or its exec failed; it goes on as it was. */
export interface ExecFailedMessage {
  type: 'exec-failed';
  reason: string;
}
export interface ErrorMessage {
  type: 'error';
  code: number;
  message: string;
}

export type HolderMessage =
  | HolderState
  | AcquiredMessage
  | DeniedMessage
  | ReplayMessage
  | OutputMessage
  | InputTakenMessage
  | PongMessage
  | ExitMessage
  | ExecFailedMessage
  | ErrorMessage;

// ---- integers ----

const TWO_POW_32 = 0x1_0000_0000;

function view(payload: Uint8Array): DataView {
  return new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
}

/** Reads a u64 offset as a JS number, refusing values past Number.MAX_SAFE_INTEGER. */
export function readSafeU64(dv: DataView, at: number, what: string): number {
  const lo = dv.getUint32(at, true);
  const hi = dv.getUint32(at + 4, true);
  // 2^53 - 1 is the largest safe integer: hi may use at most 21 bits.
  if (hi >= 0x20_0000) {
    throw new HolderProtocolError(
      'TEND_ERR_UNSAFE_OFFSET',
      `${what} ${(BigInt(hi) << 32n) | BigInt(lo)} is beyond the largest safe integer`,
    );
  }
  return hi * TWO_POW_32 + lo;
}

function writeU64(dv: DataView, at: number, value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative safe integer, got ${value}`);
  }
  dv.setUint32(at, value % TWO_POW_32, true);
  dv.setUint32(at + 4, Math.floor(value / TWO_POW_32), true);
}

function checkUint(value: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${what} must be an integer from 0 to ${max}, got ${value}`);
  }
}

// ---- encoders (controller -> holder) ----

/** One whole frame: header and payload. */
export function encodeFrame(type: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  checkUint(type, 0xff, 'frame type');
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.byteLength);
  frame[0] = type;
  view(frame).setUint32(1, payload.byteLength, true);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

function fixedFrame(type: number, payloadBytes: number, fill: (dv: DataView) => void): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payloadBytes);
  frame[0] = type;
  const dv = view(frame);
  dv.setUint32(1, payloadBytes, true);
  fill(new DataView(frame.buffer, FRAME_HEADER_BYTES, payloadBytes));
  return frame;
}

export function encodeHello(version: number = PROTOCOL_VERSION): Uint8Array {
  checkUint(version, 0xffff_ffff, 'version');
  return fixedFrame(FrameType.HELLO, 4, (dv) => dv.setUint32(0, version, true));
}

export function encodeStateReq(): Uint8Array {
  return encodeFrame(FrameType.STATE_REQ);
}

/** Asks to be copied the output's small pieces (WATCH_PROTOCOL_VERSION; never the controller). */
export function encodeWatch(): Uint8Array {
  return encodeFrame(FrameType.WATCH);
}

export function encodeAcquire(): Uint8Array {
  return encodeFrame(FrameType.ACQUIRE);
}

export function encodeRelease(): Uint8Array {
  return encodeFrame(FrameType.RELEASE);
}

export function encodeDumpSince(offset: number): Uint8Array {
  return fixedFrame(FrameType.DUMP_SINCE, 8, (dv) => writeU64(dv, 0, offset, 'DUMP_SINCE offset'));
}

/** One INPUT frame; callers with more than MAX_INBOUND_PAYLOAD_BYTES chunk first. */
export function encodeInput(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength > MAX_INBOUND_PAYLOAD_BYTES) {
    throw new RangeError(
      `an INPUT frame carries at most ${MAX_INBOUND_PAYLOAD_BYTES} bytes, got ${bytes.byteLength}`,
    );
  }
  return encodeFrame(FrameType.INPUT, bytes);
}

/**
 * One INPUT_FROM frame: the writer's bytes at..at+n-1 (n at most
 * MAX_INPUT_FROM_BYTES; callers with more chunk first). No bytes: a question,
 * answered with the writer's count and changing nothing.
 */
export function encodeInputFrom(writer: Uint8Array, at: number, bytes: Uint8Array): Uint8Array {
  if (writer.byteLength !== WRITER_ID_BYTES) {
    throw new RangeError(`a writer is ${WRITER_ID_BYTES} bytes, got ${writer.byteLength}`);
  }
  if (bytes.byteLength > MAX_INPUT_FROM_BYTES) {
    throw new RangeError(`an INPUT_FROM frame carries at most ${MAX_INPUT_FROM_BYTES} bytes, got ${bytes.byteLength}`);
  }
  if (!Number.isSafeInteger(at + bytes.byteLength)) {
    throw new RangeError(`INPUT_FROM position ${at} plus ${bytes.byteLength} bytes is beyond the largest safe integer`);
  }
  const payload = new Uint8Array(INPUT_FROM_PREFIX_BYTES + bytes.byteLength);
  payload.set(writer, 0);
  writeU64(view(payload), WRITER_ID_BYTES, at, 'INPUT_FROM position');
  payload.set(bytes, INPUT_FROM_PREFIX_BYTES);
  return encodeFrame(FrameType.INPUT_FROM, payload);
}

/**
 * RESIZE as a u16 pair. Only the u16 range is checked here, so tests can send
 * sizes the holder must refuse; HolderConnection checks MIN/MAX_COLS/ROWS.
 */
export function encodeResize(cols: number, rows: number): Uint8Array {
  checkUint(cols, 0xffff, 'cols');
  checkUint(rows, 0xffff, 'rows');
  return fixedFrame(FrameType.RESIZE, 4, (dv) => {
    dv.setUint16(0, cols, true);
    dv.setUint16(2, rows, true);
  });
}

export function encodeSignal(signo: number): Uint8Array {
  checkUint(signo, 0xffff_ffff, 'signal number');
  return fixedFrame(FrameType.SIGNAL, 4, (dv) => dv.setUint32(0, signo, true));
}

export function encodeRedraw(): Uint8Array {
  return encodeFrame(FrameType.REDRAW);
}

export function encodeKill(): Uint8Array {
  return encodeFrame(FrameType.KILL);
}

/** EXEC: the holder replaces its binary with the one at `path` (absolute), keeping its terminal. */
export function encodeExec(path: string): Uint8Array {
  const bytes = new TextEncoder().encode(path);
  if (bytes.byteLength === 0 || bytes.byteLength > EXEC_PATH_MAX_BYTES || bytes.includes(0)) {
    throw new RangeError(`an EXEC path is 1 to ${EXEC_PATH_MAX_BYTES} bytes without NUL, got ${bytes.byteLength} bytes`);
  }
  return encodeFrame(FrameType.EXEC, bytes);
}

export function encodePing(token: bigint): Uint8Array {
  if (token < 0n || token > 0xffff_ffff_ffff_ffffn) throw new RangeError(`ping token out of u64 range: ${token}`);
  return fixedFrame(FrameType.PING, 8, (dv) => dv.setBigUint64(0, token, true));
}

// ---- decoders (holder -> controller) ----

function badPayload(type: number, message: string): HolderProtocolError {
  return new HolderProtocolError('TEND_ERR_BAD_PAYLOAD', `${frameTypeName(type)}: ${message}`);
}

function expectLength(type: number, payload: Uint8Array, bytes: number): void {
  if (payload.byteLength !== bytes) {
    throw badPayload(type, `payload is ${payload.byteLength} bytes, expected ${bytes}`);
  }
}

function expectAtLeast(type: number, payload: Uint8Array, bytes: number): void {
  if (payload.byteLength < bytes) {
    throw badPayload(type, `payload is ${payload.byteLength} bytes, expected at least ${bytes}`);
  }
}

// Text in DENIED and ERROR is for people; a malformed sequence must not make
// the frame undecodable, so invalid bytes become U+FFFD.
const textDecoder = new TextDecoder('utf-8', { fatal: false });

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

// STATE byte positions, from the layout in protocol.h.
const STATE_AT = {
  version: 0,
  generation: 4,
  ringStart: 20,
  offset: 28,
  childPid: 36,
  fgPgid: 40,
  cols: 44,
  rows: 46,
  flags: 48,
  exitCode: 49,
  exitSignal: 53,
  startedAtMs: 57,
  ringCapacity: 65,
  build: 69,
} as const;

/** The build id's ASCII, up to its first NUL. */
function decodeBuild(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return String.fromCharCode(...bytes.subarray(0, end < 0 ? bytes.length : end));
}

/** Decodes a STATE payload (a version 1 or 2 one has no build); fields a later version appends are ignored. */
export function decodeState(payload: Uint8Array): HolderState {
  expectAtLeast(FrameType.STATE, payload, STATE_V1_PAYLOAD_BYTES);
  const dv = view(payload);
  const flags = dv.getUint8(STATE_AT.flags);
  return {
    type: 'state',
    version: dv.getUint32(STATE_AT.version, true),
    generation: hex(payload.subarray(STATE_AT.generation, STATE_AT.generation + GENERATION_BYTES)),
    ringStart: readSafeU64(dv, STATE_AT.ringStart, 'ring_start'),
    offset: readSafeU64(dv, STATE_AT.offset, 'offset'),
    childPid: dv.getUint32(STATE_AT.childPid, true),
    fgPgid: dv.getUint32(STATE_AT.fgPgid, true),
    cols: dv.getUint16(STATE_AT.cols, true),
    rows: dv.getUint16(STATE_AT.rows, true),
    exited: (flags & StateFlag.EXITED) !== 0,
    leased: (flags & StateFlag.LEASED) !== 0,
    youLease: (flags & StateFlag.YOU_LEASE) !== 0,
    exitCode: dv.getInt32(STATE_AT.exitCode, true),
    exitSignal: dv.getInt32(STATE_AT.exitSignal, true),
    startedAtMs: readSafeU64(dv, STATE_AT.startedAtMs, 'started_at_ms'),
    ringCapacity: dv.getUint32(STATE_AT.ringCapacity, true),
    build: payload.byteLength >= STATE_PAYLOAD_BYTES ? decodeBuild(payload.subarray(STATE_AT.build, STATE_AT.build + BUILD_ID_BYTES)) : null,
  };
}

/**
 * Encodes a STATE payload. Controllers never send STATE; this exists so tests
 * (and a future simulated holder) can build exact payloads from a typed value.
 */
export function encodeStatePayload(state: Omit<HolderState, 'type' | 'build'> & { build?: string | null }): Uint8Array {
  const payload = new Uint8Array(STATE_PAYLOAD_BYTES);
  const dv = view(payload);
  if (!/^[0-9a-f]{32}$/.test(state.generation)) throw new RangeError('generation must be 32 hex digits');
  dv.setUint32(STATE_AT.version, state.version, true);
  for (let i = 0; i < GENERATION_BYTES; i++) {
    payload[STATE_AT.generation + i] = parseInt(state.generation.slice(i * 2, i * 2 + 2), 16);
  }
  writeU64(dv, STATE_AT.ringStart, state.ringStart, 'ring_start');
  writeU64(dv, STATE_AT.offset, state.offset, 'offset');
  dv.setUint32(STATE_AT.childPid, state.childPid, true);
  dv.setUint32(STATE_AT.fgPgid, state.fgPgid, true);
  dv.setUint16(STATE_AT.cols, state.cols, true);
  dv.setUint16(STATE_AT.rows, state.rows, true);
  dv.setUint8(
    STATE_AT.flags,
    (state.exited ? StateFlag.EXITED : 0) |
      (state.leased ? StateFlag.LEASED : 0) |
      (state.youLease ? StateFlag.YOU_LEASE : 0),
  );
  dv.setInt32(STATE_AT.exitCode, state.exitCode, true);
  dv.setInt32(STATE_AT.exitSignal, state.exitSignal, true);
  writeU64(dv, STATE_AT.startedAtMs, state.startedAtMs, 'started_at_ms');
  dv.setUint32(STATE_AT.ringCapacity, state.ringCapacity, true);
  // No build: the STATE of a version 1 or 2 holder, which ends before it.
  if (state.build === null || state.build === undefined) return payload.slice(0, STATE_V1_PAYLOAD_BYTES);
  const build = new TextEncoder().encode(state.build);
  if (build.byteLength > BUILD_ID_BYTES) throw new RangeError(`a build id is at most ${BUILD_ID_BYTES} bytes`);
  payload.set(build, STATE_AT.build);
  return payload;
}

/** Decodes one holder -> controller frame's payload into a typed message. */
export function decodeHolderFrame(type: number, payload: Uint8Array): HolderMessage {
  switch (type) {
    case FrameType.STATE:
      return decodeState(payload);
    case FrameType.ACQUIRED:
      expectLength(type, payload, 0);
      return { type: 'acquired' };
    case FrameType.DENIED:
      return { type: 'denied', reason: textDecoder.decode(payload) };
    case FrameType.REPLAY: {
      expectAtLeast(type, payload, 9);
      const dv = view(payload);
      const flags = dv.getUint8(8);
      return {
        type: 'replay',
        offset: readSafeU64(dv, 0, 'REPLAY offset'),
        gap: (flags & ReplayFlag.GAP) !== 0,
        end: (flags & ReplayFlag.END) !== 0,
        bytes: payload.subarray(9),
      };
    }
    case FrameType.OUTPUT: {
      expectAtLeast(type, payload, 8);
      return {
        type: 'output',
        offset: readSafeU64(view(payload), 0, 'OUTPUT offset'),
        bytes: payload.subarray(8),
      };
    }
    case FrameType.INPUT_TAKEN:
      expectLength(type, payload, INPUT_TAKEN_PAYLOAD_BYTES);
      return {
        type: 'input-taken',
        writer: payload.slice(0, WRITER_ID_BYTES),
        total: readSafeU64(view(payload), WRITER_ID_BYTES, 'INPUT_TAKEN total'),
      };
    case FrameType.PONG:
      expectLength(type, payload, 8);
      return { type: 'pong', token: view(payload).getBigUint64(0, true) };
    case FrameType.EXIT: {
      expectLength(type, payload, 8);
      const dv = view(payload);
      return { type: 'exit', code: dv.getInt32(0, true), signal: dv.getInt32(4, true) };
    }
    case FrameType.EXEC_FAILED:
      return { type: 'exec-failed', reason: textDecoder.decode(payload) };
    case FrameType.ERROR: {
      expectAtLeast(type, payload, 2);
      return {
        type: 'error',
        code: view(payload).getUint16(0, true),
        message: textDecoder.decode(payload.subarray(2)),
      };
    }
    default:
      throw new HolderProtocolError(
        'TEND_ERR_UNKNOWN_FRAME',
        `a holder does not send ${frameTypeName(type)}`,
      );
  }
}
