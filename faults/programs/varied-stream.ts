// The crash loop's terminal streams: seeded, and varied in what a recovery
// must rebuild — colours (16, 256, RGB), every common SGR flag and underline
// style, cursor moves, erases, inserts and deletes, wide characters (CJK,
// emoji, combining marks), scroll regions, the alternate screen, wraps at the
// margin and tabs.
//
// It draws from test/support/random-stream.ts's vocabulary but leaves out
// what that generator exists to probe at the edges and a recovery cannot be
// held to: OSC 8 links and charsets (snapshot corners its own test allows
// ~5 % of streams to miss), and long random interleavings that make xterm.js
// itself throw (seen: "Cannot set properties of undefined (setting
// 'isWrapped')"), which would stop the reference, not test the server.

const TEXT = ['a', 'b', 'Z', '0', ' ', '.', 'word ', 'é', 'e\u0301', '\u4e00', '\u754c', '\u{1f600}', 'ｱ', '─'];
const SGR = ['0', '1', '2', '3', '4', '4:3', '5', '7', '9', '22', '23', '24', '27', '31', '92', '38;5;3', '38;5;200',
  '38;2;10;20;30', '44', '103', '48;5;12', '48;2;200;100;0', '39', '49', '1;31', '0;7'];

export function variedStream(random: () => number, steps: number, cols: number, rows: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const n = (max: number) => 1 + Math.floor(random() * max);
  let out = '';
  for (let i = 0; i < steps; i++) {
    const r = random();
    if (r < 0.4) {
      let run = '';
      const len = n(cols + 4);
      for (let k = 0; k < len; k++) run += random() < 0.8 ? pick(TEXT.slice(0, 6)) : pick(TEXT);
      out += run;
    } else if (r < 0.55) out += `\x1b[${pick(SGR)}m`;
    else if (r < 0.67) out += pick([`\x1b[${n(rows)};${n(cols)}H`, `\x1b[${n(cols)}G`, `\x1b[${n(5)}A`, `\x1b[${n(5)}B`, `\x1b[${n(9)}C`, `\x1b[${n(9)}D`, '\r', '\n', '\r\n', '\r\n', '\b', '\t']);
    else if (r < 0.77) out += pick([`\x1b[${n(9)}X`, '\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', `\x1b[${n(3)}@`, `\x1b[${n(3)}P`, `\x1b[${n(2)}L`, `\x1b[${n(2)}M`]);
    else if (r < 0.8) {
      // A scroll region used and given back: lines scroll inside it, then the whole screen is the region again.
      const top = n(rows - 2);
      const bottom = top + n(rows - top);
      out += `\x1b[${top};${bottom}r\x1b[${bottom};1H${'\n'.repeat(n(3))}x\x1b[r\x1b[${n(rows)};1H`;
    } else if (r < 0.82) out += pick(['\x1b7', '\x1b8']);
    else if (r < 0.84) out += pick(['\x1b[?25l', '\x1b[?25h', '\x1b[3 q', '\x1b[0 q', '\x1b[?2004h', '\x1b[?2004l']);
    else if (r < 0.86) out += pick(['\x1b[?1049h\x1b[H\x1b[2J', '\x1b[?1049l']);
    else if (r < 0.88) out += `\x1b]2;t${n(99)}\x07`;
    else out += `${'y'.repeat(cols - 1)}${pick(TEXT)}${pick(TEXT)}\r\n`;
  }
  return out;
}
