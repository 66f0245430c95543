// The shell's working directory as shells report it: OSC 7 (`file://host/path`,
// percent-encoded) and VS Code's OSC 633 `P;Cwd=path` (with `\\` and `\xNN`
// escapes). Anything malformed is ignored rather than guessed at.

/** OSC 7 payload → absolute path, or undefined. */
export function parseOsc7Cwd(data: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)$/i.exec(data);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/** OSC 633 payload → path when it is a `P;Cwd=` property, else undefined. */
export function parseOsc633Cwd(data: string): string | undefined {
  const prefix = 'P;Cwd=';
  if (!data.startsWith(prefix)) return undefined;
  const raw = data.slice(prefix.length);
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    if (raw[i + 1] === '\\') {
      out += '\\';
      i++;
    } else if (raw[i + 1] === 'x' && /^[0-9a-f]{2}$/i.test(raw.slice(i + 2, i + 4))) {
      out += String.fromCharCode(parseInt(raw.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      out += c;
    }
  }
  return out === '' ? undefined : out;
}
