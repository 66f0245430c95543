// What a session runs, as one line a person reads (the Command column of
// `tend ls` and the dashboard): its argv as a shell would take it back, the program without its
// directory, and a `sh -c LINE` as LINE itself (the dashboard's Command field
// starts sessions that way), cut to a length with an ellipsis. Pure: the
// browser loads it too.

const SAFE_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;
const SHELLS_TAKING_A_LINE = new Set(['sh', 'bash', 'dash', 'zsh']);

/** A word as a shell would need it typed: bare when it holds nothing special, else in single quotes. */
export function shellWord(word: string): string {
  if (word === '') return "''";
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

/** Words as one line a shell would split back into the same words. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/** The whole command line; empty when argv is empty or not known. */
export function commandLine(argv: readonly string[] | null | undefined): string {
  if (!argv || argv.length === 0) return '';
  const program = basename(argv[0]!);
  if (SHELLS_TAKING_A_LINE.has(program) && argv.length === 3 && argv[1] === '-c') return argv[2]!;
  return shellLine([program, ...argv.slice(1)]);
}

/** The command line on one line: runs of white space (a multi-line `sh -c` script's newlines) as one space. */
export function oneLineCommand(argv: readonly string[] | null | undefined): string {
  return commandLine(argv).replace(/\s+/g, ' ');
}

/** `text` cut to at most `maxChars` characters, the cut marked with "…". */
export function shorten(text: string, maxChars: number): string {
  const chars = [...text];
  return chars.length <= maxChars ? text : `${chars.slice(0, Math.max(0, maxChars - 1)).join('')}…`;
}

/** The command line on one line, at most `maxChars` characters, the cut marked with "…". */
export function shortCommandLine(argv: readonly string[] | null | undefined, maxChars: number): string {
  return shorten(oneLineCommand(argv), maxChars);
}
