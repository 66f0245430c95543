// The only code that speaks to holders. Everything else imports from here.

export {
  HolderConnection,
  HolderConnectionClosedError,
  HolderErrorReply,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type AcquireResult,
  type CloseEvent,
  type ExecResult,
  type ExitEvent,
  type HolderConnectOptions,
  type HolderErrorEvent,
  type OutputEvent,
  type ReplayEvent,
  type ReplayRange,
} from './holder-connection.js';
export { spawnHolder, defaultHolderPath, DEFAULT_READY_TIMEOUT_MS, type SpawnHolderOptions, type SpawnedHolder } from './spawn-holder.js';
export { FrameReader, ReaderState, type RawFrame } from './frame-reader.js';
export { FrameWriter, chunkInput } from './frame-writer.js';
export { HolderProtocolError, type HolderProtocolErrorCode, type HolderState, ErrorCode } from '../protocol/holder-frames.js';
