// Checks of the values a person types, made before anything is sent, against
// the API's own limits (src/protocol/api): so a mistake is named by the
// option it was typed in (`--size 5000x5000`), never by the API field the
// server would have named (`"cols"`), and nothing half happens (a session
// started before its workspace name is refused).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  MAX_ARG_CHARS, MAX_ARGV_ITEMS, SESSION_NAME_PATTERN, SESSION_NAME_RULE, SESSION_SIZE_MAX, SESSION_SIZE_MIN, TERM_NAME_PATTERN, TERM_NAME_RULE,
} from '../protocol/api/index.js';
import { usageError } from './cli-error.js';

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** `--size COLSxROWS`, each within what a session may be. */
export function parseSize(option: string, text: string): TerminalSize {
  const m = /^(\d+)x(\d+)$/.exec(text);
  if (!m) throw usageError(`${option} must look like COLSxROWS (e.g. 120x40), not "${text}"`);
  const size = { cols: Number(m[1]), rows: Number(m[2]) };
  const fits = (n: number) => n >= SESSION_SIZE_MIN && n <= SESSION_SIZE_MAX;
  if (!fits(size.cols) || !fits(size.rows)) {
    throw usageError(`${option} ${text}: columns and rows must each be from ${SESSION_SIZE_MIN} to ${SESSION_SIZE_MAX}`);
  }
  return size;
}

/** This terminal's size for a new session, within what a session may be (a huge window is not refused, only capped). */
export function fittedSize(cols: number, rows: number): TerminalSize {
  const fit = (n: number) => Math.min(SESSION_SIZE_MAX, Math.max(SESSION_SIZE_MIN, n));
  return { cols: fit(cols), rows: fit(rows) };
}

/** A session's or workspace's name, as typed after `what` (`--name`, `NAME`, `--workspace`). */
export function checkName(what: string, name: string): string {
  if (!SESSION_NAME_PATTERN.test(name)) throw usageError(`${what} "${name}" cannot be a name: a name is ${SESSION_NAME_RULE}`);
  return name;
}

/** `--term TERM`: a terminfo name. */
export function checkTerm(option: string, term: string): string {
  if (!TERM_NAME_PATTERN.test(term)) throw usageError(`${option} "${term}" is not a terminal type: a TERM is ${TERM_NAME_RULE}`);
  return term;
}

/** A whole number from min to max, as typed after `option`; `what` says what it counts ("matches"). */
export function parseWholeNumber(option: string, text: string, range: { min: number; max: number; what: string }): number {
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw usageError(`${option} takes a number of ${range.what} from ${range.min} to ${range.max}, not "${text}"`);
  }
  return n;
}

/** `--cwd DIR` made absolute, refused here when it is no directory (the server would name its field). */
export function checkDirectory(option: string, dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path)) throw usageError(`${option} ${dir}: the directory does not exist`);
  if (!statSync(path).isDirectory()) throw usageError(`${option} ${dir}: not a directory`);
  return path;
}

/**
 * The command to start (CMD ARGS..., after `--`), or null when none was
 * given: a bare `--` with nothing after it means the default shell, as no
 * `--` does (the server would refuse an empty "argv").
 */
export function commandAfterDash(rest: string[] | null): string[] | null {
  if (rest === null || rest.length === 0) return null;
  if (rest.length > MAX_ARGV_ITEMS) throw usageError(`the command has ${rest.length} words; a session's command has at most ${MAX_ARGV_ITEMS}`);
  const long = rest.find((word) => word.length > MAX_ARG_CHARS);
  if (long !== undefined) throw usageError(`a word of the command is ${long.length} characters; at most ${MAX_ARG_CHARS}`);
  return rest;
}
