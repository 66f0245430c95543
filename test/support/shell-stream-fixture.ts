// Byte streams as an integrated shell writes them, for the command index's
// tests (src/server/commands/): the same marks in the same order as the
// snippets in src/shell-integration/.
import xtermHeadless from '@xterm/headless';
import type { Terminal } from '@xterm/headless';
import { escapeCommandLine } from '../../src/shell-integration/command-line-escape.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;

export const osc = (payload: string): string => `\x1b]${payload}\x07`;
export const MARK_A = osc('133;A');
export const MARK_B = osc('133;B');
export const MARK_C = osc('133;C');
export const markD = (status: number | string): string => osc(`133;D;${status}`);
export const markE = (line: string): string => osc(`633;E;${escapeCommandLine(line)}`);
export const cwdMark = (path: string): string => osc(`7;file://host${encodeURI(path)}`);

/** A prompt as bash draws it with the snippet: OSC 7, A, the prompt text, B. */
export function prompt(cwd = '/home/user', text = '$ '): string {
  return cwdMark(cwd) + MARK_A + text + MARK_B;
}

/**
 * One command as the shell and the terminal driver produce it: the typed line
 * echoed, Enter (CR LF), then (from PS0) E and C, the output, and D.
 */
export function command(line: string, output: string, status: number, opts: { sendLine?: boolean } = {}): string {
  return line + '\r\n' + (opts.sendLine === false ? '' : markE(line)) + MARK_C + output + markD(status);
}

export function newTerminal(cols = 80, rows = 24, scrollback = 1000): Terminal {
  return new HeadlessTerminal({ cols, rows, scrollback, allowProposedApi: true });
}

export function feed(terminal: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => terminal.write(data, resolve));
}
