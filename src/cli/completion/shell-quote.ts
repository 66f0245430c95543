// Words written into a generated completion script, quoted so that the shell
// reads them back unchanged: a path with a space or a quote, a description
// with an apostrophe.

/** Single-quoted for bash and zsh: a quote inside ends the string, adds an escaped one, and reopens. */
export function posixQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Single-quoted for fish, where a backslash and a quote are escaped inside the quotes. */
export function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&')}'`;
}
