// The byte streams every side is measured on, generated into temp files from
// a fixed seed so each run (and each side) sees exactly the same bytes.
// Three kinds of load: coloured log text (the common case), full-screen TUI
// redraws at 80x24 (cursor addressing, 256-colour SGR) and CJK/emoji (wide
// characters, the slow path of every emulator).

import { createWriteStream, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';

export interface StreamFile {
  name: string;
  path: string;
  bytes: number;
}

const ESC = '\x1b';
const MB = 1_000_000;
const WRITE_CHUNK_CHARS = 256 * 1024;

/** mulberry32: a tiny deterministic PRNG; the streams must be identical across runs. */
function makeRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Piece = (rand: () => number) => string;

const WORDS = ['request', 'served', 'cache', 'miss', 'hit', 'worker', 'queue', 'flush', 'GET', 'POST',
  '/api/v1/sessions', 'latency', 'ms', 'retry', 'upstream', 'connected', 'closed', 'user=42', 'ok'];
const LEVELS = [`${ESC}[32mINFO${ESC}[0m`, `${ESC}[33mWARN${ESC}[0m`, `${ESC}[31;1mERROR${ESC}[0m`,
  `${ESC}[2mDEBUG${ESC}[0m`];

/** One coloured log line, 40–160 columns, so some lines wrap at 80. */
const logLine: Piece = (rand) => {
  const words: string[] = [];
  const n = 5 + Math.floor(rand() * 20);
  for (let i = 0; i < n; i++) {
    const w = WORDS[Math.floor(rand() * WORDS.length)]!;
    words.push(rand() < 0.15 ? `${ESC}[38;5;${Math.floor(rand() * 256)}m${w}${ESC}[39m` : w);
  }
  const ms = Math.floor(rand() * 1e6).toString().padStart(6, '0');
  return `2026-12-02T10:${ms.slice(0, 2)}:${ms.slice(2, 4)}.${ms.slice(4)} ${LEVELS[Math.floor(rand() * 4)]} ${words.join(' ')}\n`;
};

/** One full 80x24 frame: every row addressed and repainted in 256 colours, plus a status line. */
function tuiFrame(cols: number, rows: number): Piece {
  return (rand) => {
    let out = `${ESC}[H`;
    for (let r = 1; r < rows; r++) {
      out += `${ESC}[${r};1H${ESC}[38;5;${Math.floor(rand() * 256)};48;5;${Math.floor(rand() * 24) + 232}m`;
      let row = '';
      while (row.length < cols) row += WORDS[Math.floor(rand() * WORDS.length)]! + ' ';
      out += row.slice(0, cols);
    }
    const status = ` frame ${Math.floor(rand() * 1e9)} `.padEnd(cols, '─');
    return `${out}${ESC}[${rows};1H${ESC}[7m${status}${ESC}[0m`;
  };
}

const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x4e00, 0x9fff], // CJK unified ideographs (wide)
  [0xac00, 0xd7a3], // Hangul syllables (wide)
  [0x3040, 0x309f], // Hiragana (wide)
  [0x1f600, 0x1f64f], // emoticons (wide, astral: surrogate pairs in JS)
  [0x1f300, 0x1f5ff], // pictographs
];

/** A line of wide characters, emoji, combining marks and some ASCII. */
const unicodeLine: Piece = (rand) => {
  let out = '';
  const n = 10 + Math.floor(rand() * 50);
  for (let i = 0; i < n; i++) {
    const pick = rand();
    if (pick < 0.1) out += ' ';
    else if (pick < 0.2) out += 'e\u0301'; // e + combining acute
    else if (pick < 0.25) out += `${ESC}[3${1 + Math.floor(rand() * 6)}m`;
    else {
      const [lo, hi] = CJK_RANGES[Math.floor(rand() * CJK_RANGES.length)]!;
      out += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    }
  }
  return `${out}${ESC}[0m\n`;
};

async function writeStream(path: string, targetBytes: number, seed: number, piece: Piece,
  prologue = '', epilogue = ''): Promise<StreamFile> {
  const rand = makeRandom(seed);
  const out = createWriteStream(path);
  let written = Buffer.byteLength(prologue);
  let chunk = prologue;
  while (written < targetBytes) {
    const p = piece(rand);
    chunk += p;
    written += Buffer.byteLength(p);
    if (chunk.length >= WRITE_CHUNK_CHARS) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk + epilogue);
  await once(out, 'finish');
  return { name: '', path, bytes: statSync(path).size };
}

export interface StreamSizes {
  textMb: number;
  tuiMb: number;
  unicodeMb: number;
}

export const FULL_SIZES: StreamSizes = { textMb: 31.5, tuiMb: 31.5, unicodeMb: 21 };
export const QUICK_SIZES: StreamSizes = { textMb: 4, tuiMb: 4, unicodeMb: 3 };

export async function generateStreams(dir: string, sizes: StreamSizes): Promise<StreamFile[]> {
  const specs: Array<[string, number, Piece, string, string]> = [
    ['text-sgr', sizes.textMb, logLine, '', ''],
    // alternate screen in and out, as a real full-screen program does
    ['tui-80x24', sizes.tuiMb, tuiFrame(80, 24), `${ESC}[?1049h`, `${ESC}[?1049l`],
    ['unicode', sizes.unicodeMb, unicodeLine, '', ''],
  ];
  const files: StreamFile[] = [];
  for (const [i, [name, mb, piece, pro, epi]] of specs.entries()) {
    const f = await writeStream(join(dir, `${name}.bin`), mb * MB, 1000 + i, piece, pro, epi);
    files.push({ ...f, name });
  }
  return files;
}

/** ROWS rows of exactly COLS coloured columns: history for the memory and reattach suites. */
export function generateFill(dir: string, cols: number, rows: number): StreamFile {
  const rand = makeRandom(7);
  const lines: string[] = [];
  for (let row = 1; row <= rows; row++) {
    let body = `row ${row} `;
    while (body.length < cols) body += String.fromCharCode(97 + Math.floor(rand() * 26));
    lines.push(`${ESC}[38;5;${row % 256}m${body.slice(0, cols)}${ESC}[0m\r\n`);
  }
  const path = join(dir, `fill-${cols}.bin`);
  writeFileSync(path, lines.join(''));
  return { name: `fill-${cols}`, path, bytes: statSync(path).size };
}
