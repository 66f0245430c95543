// The command index as plain data, for checkpoints.
//
// A place is saved as its row number (screen/history/history.ts: numbers
// count every row that ever left the live buffer, so they mean the same row
// in the history and after a restore that brings the history and the live
// rows back) and its offset into the logical line. Version 1, written before
// rows were numbered, saved rows counted from the top of the buffer (a
// checkpoint held the whole scrollback then); it is still read. The buffer's
// row base, length and scrolled-off row count (baseY) at save time are kept
// so the restoring side can check the screen it restored matches.
//
// Saved data comes back from disk, so parsing checks every field and drops
// what does not fit rather than trusting it.
import { MAX_COMMAND_LINE_CHARS, MAX_CWD_CHARS } from './shell-marks.js';

export const COMMAND_INDEX_JSON_VERSION = 2;

export interface SavedPlace {
  row: number;
  offset: number;
}

export interface SavedCommand {
  number: number;
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  /** True for the command that was running (no D yet) when the index was saved. */
  running: boolean;
  promptStart: SavedPlace | null;
  outputStart: SavedPlace | null;
  outputEnd: SavedPlace | null;
}

export interface SavedPrompt {
  promptStart: SavedPlace | null;
  inputStart: SavedPlace | null;
  commandLine: string | null;
  /**
   * The shell showed a continuation prompt (633;F) after this prompt's B: it
   * waits for the rest of a command. Absent in indexes saved before it was kept.
   */
  continuation?: boolean;
}

export interface CommandIndexJson {
  /** 1: rows counted from the buffer's top; 2: row numbers. */
  version: 1 | typeof COMMAND_INDEX_JSON_VERSION;
  /** The row number of the buffer's line 0 when saved (0 in version 1). */
  rowBase: number;
  /** buffer.normal.length when saved. */
  bufferLength: number;
  /** Rows scrolled off the screen into the scrollback when saved (buffer.normal.baseY). */
  baseY: number;
  cwd: string | null;
  lastNumber: number;
  commands: SavedCommand[];
  pending: SavedPrompt;
}

type Fields = Record<string, unknown>;

/** The saved index, or null when the value is not one this version wrote. */
export function parseCommandIndexJson(value: unknown): CommandIndexJson | null {
  if (!isObject(value) || (value['version'] !== 1 && value['version'] !== COMMAND_INDEX_JSON_VERSION)) return null;
  const version = value['version'];
  const rowBase = version === 1 ? 0 : value['rowBase'];
  if (!isCount(rowBase)) return null;
  const bufferLength = value['bufferLength'];
  const baseY = value['baseY'];
  const lastNumber = value['lastNumber'];
  if (!isCount(bufferLength) || !isCount(baseY) || !isCount(lastNumber)) return null;
  if (!Array.isArray(value['commands'])) return null;
  const commands: SavedCommand[] = [];
  for (const item of value['commands']) {
    const command = parseCommand(item);
    // Numbers must rise, and none may pass lastNumber: numbering continues from it.
    if (command === null || command.number > lastNumber) continue;
    const previous = commands[commands.length - 1];
    if (previous !== undefined && command.number <= previous.number) continue;
    commands.push(command);
  }
  // Only the newest command can still be running.
  commands.forEach((c, i) => {
    if (i < commands.length - 1) c.running = false;
  });
  const pending = isObject(value['pending']) ? value['pending'] : {};
  return {
    version,
    rowBase,
    bufferLength,
    baseY,
    cwd: parseCwd(value['cwd']),
    lastNumber,
    commands,
    pending: {
      promptStart: parsePlace(pending['promptStart']),
      inputStart: parsePlace(pending['inputStart']),
      commandLine: typeof pending['commandLine'] === 'string' ? pending['commandLine'].slice(0, MAX_COMMAND_LINE_CHARS) : null,
      continuation: pending['continuation'] === true,
    },
  };
}

function parseCommand(value: unknown): SavedCommand | null {
  if (!isObject(value)) return null;
  const { number, commandLine, startedAt, endedAt, exitCode, running } = value;
  if (!isCount(number) || number < 1 || typeof commandLine !== 'string' || !isTime(startedAt)) return null;
  return {
    number,
    commandLine: commandLine.slice(0, MAX_COMMAND_LINE_CHARS),
    cwd: parseCwd(value['cwd']),
    startedAt,
    endedAt: isTime(endedAt) ? endedAt : null,
    exitCode: Number.isInteger(exitCode) ? (exitCode as number) : null,
    running: running === true && !isTime(endedAt),
    promptStart: parsePlace(value['promptStart']),
    outputStart: parsePlace(value['outputStart']),
    outputEnd: parsePlace(value['outputEnd']),
  };
}

function parsePlace(value: unknown): SavedPlace | null {
  if (!isObject(value) || !isCount(value['row']) || !isCount(value['offset'])) return null;
  return { row: value['row'], offset: value['offset'] };
}

function parseCwd(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CWD_CHARS ? value : null;
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
