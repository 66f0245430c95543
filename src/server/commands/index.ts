// The per-session command index: what the shell ran, read from its marks.
export {
  CommandIndex,
  MAX_COMMANDS_KEPT,
  type CommandOutput,
  type CommandIndexOptions,
  type IndexedCommand,
  type RestoreOptions,
} from './command-index.js';
export { parseCommandIndexJson, COMMAND_INDEX_JSON_VERSION, type CommandIndexJson } from './command-index-json.js';
export type { BufferPosition } from './buffer-position.js';
export { MAX_COMMAND_LINE_CHARS, MAX_CWD_CHARS } from './shell-marks.js';
export { commandInfo, onFinishedWithOutput, watchIndex, type CommandInfo, type CommandWatch, type FinishedCommand } from './command-info.js';
