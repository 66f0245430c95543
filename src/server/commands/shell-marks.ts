// Reading the marks a shell integration writes: OSC 133 (FinalTerm), OSC 633
// (VS Code) and OSC 7 (cwd). Pure functions from an OSC payload to what it
// means; anything malformed or unknown reads as null and is ignored upstream.
import { unescapeCommandLine } from '../../shell-integration/command-line-escape.js';

export type ShellMark =
  | { kind: 'prompt-start' } // A
  | { kind: 'input-start' } // B
  | { kind: 'output-start' } // C
  | { kind: 'command-finished'; exitCode: number | null } // D[;status]
  | { kind: 'command-line'; commandLine: string } // 633;E;line
  | { kind: 'continuation-start' } // 633;F: a continuation prompt (PS2) starts
  | { kind: 'continuation-end' } // 633;G: it ends, the rest of the command is typed after it
  | { kind: 'cwd'; cwd: string }; // OSC 7, 633;P;Cwd=path

/** Longer command lines are cut here: the index keeps a label, not a transcript. */
export const MAX_COMMAND_LINE_CHARS = 16 * 1024;
/** Longer than any real path (PATH_MAX is 4096 bytes); longer ones are ignored. */
export const MAX_CWD_CHARS = 4096;

// Exit statuses are small in POSIX shells (0-255); other platforms report
// 32-bit values (Windows NTSTATUS). Anything beyond that range is noise.
const EXIT_CODE_PATTERN = /^-?\d{1,10}$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export function parseExitCode(text: string | undefined): number | null {
  if (text === undefined || !EXIT_CODE_PATTERN.test(text)) return null;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : null;
}

/** An OSC 133 payload: `A`, `B`, `C`, `D` or `D;<status>`, each optionally followed by `;key=value` options. */
export function parseFinalTermMark(data: string): ShellMark | null {
  const [letter, first] = data.split(';', 2);
  switch (letter) {
    case 'A':
      return { kind: 'prompt-start' };
    case 'B':
      return { kind: 'input-start' };
    case 'C':
      return { kind: 'output-start' };
    case 'D':
      // `D;aid=…` carries no status; a status is the first parameter when present.
      return { kind: 'command-finished', exitCode: first === undefined || first.includes('=') ? null : parseExitCode(first) };
    default:
      return null;
  }
}

/** An OSC 633 payload: A-D as in 133, `E;<escaped line>[;nonce]`, F/G around a continuation prompt, `P;Cwd=<escaped path>`. */
export function parseVsCodeMark(data: string): ShellMark | null {
  const letter = data.split(';', 1)[0];
  if (letter === 'A' || letter === 'B' || letter === 'C' || letter === 'D') return parseFinalTermMark(data);
  if (data === 'F') return { kind: 'continuation-start' };
  if (data === 'G') return { kind: 'continuation-end' };
  if (letter === 'E') {
    // The line is escaped so it holds no ';': what follows a second ';' is a nonce.
    // An escaped character takes at most 4 characters, so cutting before
    // unescaping bounds the work and still keeps MAX_COMMAND_LINE_CHARS of line.
    const escaped = (data.slice(2).split(';', 1)[0] ?? '').slice(0, MAX_COMMAND_LINE_CHARS * 4);
    return { kind: 'command-line', commandLine: unescapeCommandLine(escaped).slice(0, MAX_COMMAND_LINE_CHARS) };
  }
  if (letter === 'P') {
    const property = data.slice(2);
    if (!property.startsWith('Cwd=')) return null;
    const cwd = unescapeCommandLine(property.slice(4));
    return isPlausibleCwd(cwd) ? { kind: 'cwd', cwd } : null;
  }
  return null;
}

/** An OSC 7 payload: `file://<host><percent-encoded absolute path>`. */
export function parseCwdUrl(data: string): ShellMark | null {
  if (data.length > MAX_CWD_CHARS * 3 + 1024) return null;
  const match = /^file:\/\/[^/]*(\/.*)$/s.exec(data);
  if (match === null) return null;
  let cwd: string;
  try {
    cwd = decodeURIComponent(match[1]!);
  } catch {
    return null; // a '%' not followed by two hex digits, or invalid UTF-8
  }
  return isPlausibleCwd(cwd) ? { kind: 'cwd', cwd } : null;
}

function isPlausibleCwd(cwd: string): boolean {
  // A path can hold any byte but NUL; beyond that only the length is checked.
  return cwd.length > 0 && cwd.length <= MAX_CWD_CHARS && !cwd.includes('\u0000');
}
