// The escaping of command lines in OSC 633;E (see index.ts for the rules):
// the TypeScript side of what the shell snippets do, used to read the marks
// and to check the snippets against.

/** Escapes a command line the way the snippets do. */
export function escapeCommandLine(line: string): string {
  let out = '';
  for (const ch of line) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === ';') out += '\\x3b';
    else if ((code >= 0x01 && code <= 0x1f) || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out;
}

/**
 * Undoes escapeCommandLine. Lenient, as marks come from programs we do not
 * control: a backslash that starts neither `\\` nor `\xHH` is kept as it is.
 */
export function unescapeCommandLine(escaped: string): string {
  let out = '';
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    if (escaped[i + 1] === '\\') {
      out += '\\';
      i += 1;
      continue;
    }
    const hex = escaped.slice(i + 2, i + 4);
    if (escaped[i + 1] === 'x' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      out += String.fromCharCode(parseInt(hex, 16));
      i += 3;
      continue;
    }
    out += ch;
  }
  return out;
}
