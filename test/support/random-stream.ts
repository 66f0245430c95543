// Seeded random terminal output for round-trip fuzzing: printable ASCII, CJK,
// emoji, combining marks, SGR (every flag, 16/256/RGB colours, underline
// styles and colour, links), cursor moves, erases, inserts/deletes, tabs,
// wraps at the margin, scrolling with regions, saved cursors, charsets,
// modes and the alternate screen; saves in the pending-wrap column and pens
// whose underline style outlives its flag. Deterministic per seed.

/** mulberry32: small, fast, good enough to pick test bytes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXT = ['a', 'b', 'Z', '0', ' ', '.', '─', 'é', 'e\u0301', '\u4e00', '\u754c', '\u{1f600}', '\u2764\ufe0f', '\u{1f468}\u200d\u{1f469}', 'ｱ'];
const SGR = ['0', '1', '2', '3', '4', '4:2', '4:3', '4:5', '5', '7', '8', '9', '53', '21', '22', '23', '24', '27', '31', '92', '38;5;3', '38;5;200',
  '38;2;10;20;30', '44', '103', '48;5;12', '48;2;200;100;0', '58;5;9', '58;2;1;2;3', '39', '49', '59', '1;2', '22;2'];

export function randomStream(random: () => number, steps: number, cols: number, rows: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const n = (max: number) => 1 + Math.floor(random() * max);
  let out = '';
  for (let i = 0; i < steps; i++) {
    const r = random();
    if (r < 0.35) {
      let run = '';
      const len = n(cols + 4);
      for (let k = 0; k < len; k++) run += random() < 0.8 ? pick(TEXT.slice(0, 6)) : pick(TEXT);
      out += run;
    } else if (r < 0.5) out += `\x1b[${pick(SGR)}m`;
    else if (r < 0.6) out += pick([`\x1b[${n(rows)};${n(cols)}H`, `\x1b[${n(cols)}G`, `\x1b[${n(5)}A`, `\x1b[${n(5)}B`, `\x1b[${n(9)}C`, `\x1b[${n(9)}D`, '\r', '\n', '\r\n', '\b', '\t', `\x1b[${cols}G`]);
    else if (r < 0.7) out += pick([`\x1b[${n(9)}X`, '\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', '\x1b[1J', `\x1b[${n(3)}@`, `\x1b[${n(3)}P`, `\x1b[${n(2)}L`, `\x1b[${n(2)}M`, `\x1b[${n(2)}S`, `\x1b[${n(2)}T`, '\x1bM', '\x1bD']);
    else if (r < 0.75) {
      // Saves and restores, also: a save in the pending-wrap column, and save, reset, restore (which
      // brings back a pen whose underline comes from its style record alone only if its flag was off).
      out += random() < 0.5 ? pick(['\x1b7', '\x1b[s', `\x1b[${cols}Gz\x1b7`]) : random() < 0.3 ? pick(['\x1b8', '\x1b[u', '\x1b7\x1b[0m\x1b8']) : '\x1b[4G';
    }
    else if (r < 0.8) {
      const top = n(rows - 1);
      out += pick([`\x1b[${top};${top + n(rows - top)}r`, '\x1b[r']);
    } else if (r < 0.84) out += pick(['\x1bH', '\x1b[g', '\x1b[3g', '\x1b(0', '\x1b(B', '\x1b)0', '\x0e', '\x0f', '\x1b*A', '\x1bn']);
    else if (r < 0.88) out += pick(['\x1b[?25l', '\x1b[?25h', '\x1b[3 q', '\x1b[0 q', '\x1b[?7l', '\x1b[?7h', '\x1b[4h', '\x1b[4l', '\x1b[?6h', '\x1b[?6l', '\x1b[?1h', '\x1b[?2004h', '\x1b[?1000h', '\x1b[?1006h', '\x1b[?45h']);
    else if (r < 0.91) out += pick(['\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[?1047h', '\x1b[?1047l']);
    else if (r < 0.94) {
      // The last: a curly underline a DECRC takes back the flag of, and a link shows again without it.
      out += pick(['\x1b]8;;https://e.x/a\x1b\\', '\x1b]8;id=k;https://e.x/b\x1b\\', '\x1b]8;;\x1b\\', '\x1b[4:3m\x1b8\x1b]8;;https://e.x/c\x1b\\']);
    }
    else if (r < 0.96) out += `\x1b]2;t${n(99)}\x07`;
    else out += `${'y'.repeat(cols - 1)}${pick(TEXT)}${pick(TEXT)}`;
  }
  return out;
}
