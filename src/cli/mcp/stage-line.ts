// Whether `run` asks the server to stage a command line (run it from a
// script the shell sources) rather than type it. A typed line goes through
// the shell's line editor: an unbalanced quote, a backslash at the end, an
// open `(` or `{`, a here-document, a trailing `|` or `&&`, or a compound
// command left open (`for … do` with no `done`) leaves the shell at a
// continuation prompt (`dquote>`, `> `) waiting for more, and the await for
// a command that never starts. `!` may be expanded from the history, and
// characters past ASCII reach a line editor in a non-UTF-8 locale as meta
// keys. Staged, the line reaches the shell as written, and one that does not
// parse fails as one command with its error. A plain line is typed, so the
// shell's history shows it as the agent gave it.

/** Characters a line may hold and still be typed: none opens anything a shell would wait to see closed. */
const PLAIN_CHARACTERS = /^[A-Za-z0-9 _.,:/=+@%~*?;&|<>$#^[\]-]*$/;
/** Words that open a compound command, which a line may leave unfinished. */
const OPENING_WORD = /(^|[\s;&|])(if|then|else|elif|for|while|until|do|case|select|function|coproc)(?=$|[\s;&|])/;
/** A here-document, or a line that ends in an operator wanting another command. */
const WANTS_MORE = /<<|(\|\||&&|\|)\s*$/;

/** Whether the line should be staged (true) or can be typed as it is (false). */
export function shouldStage(line: string): boolean {
  return !PLAIN_CHARACTERS.test(line) || OPENING_WORD.test(line) || WANTS_MORE.test(line);
}
