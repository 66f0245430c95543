// What a session runs, as one short line: its argv the way a shell would
// take it back, the program without its directory, a `sh -c` line as the
// line itself (what the dashboard's Command field makes), cut to a length.

/** The dashboard's cell shows at most this many characters; the whole line is its tooltip. */
export const COMMAND_LINE_MAX_CHARS = 60;

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

function quoted(word: string): string {
  if (word === '') return "''";
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 && slash < path.length - 1 ? path.slice(slash + 1) : path;
}

/** The whole command line (empty when the session's argv is not known). */
export function commandLine(argv: readonly string[] | undefined | null): string {
  if (!argv || argv.length === 0) return '';
  const program = basename(argv[0]!);
  if ((program === 'sh' || program === 'bash') && argv.length === 3 && argv[1] === '-c') return argv[2]!;
  return [program, ...argv.slice(1)].map(quoted).join(' ');
}

/** The line cut to `maxChars`, with an ellipsis when cut. */
export function shortCommandLine(argv: readonly string[] | undefined | null, maxChars = COMMAND_LINE_MAX_CHARS): string {
  const line = commandLine(argv).replace(/\s+/g, ' ');
  return line.length <= maxChars ? line : `${line.slice(0, Math.max(1, maxChars - 1))}…`;
}
