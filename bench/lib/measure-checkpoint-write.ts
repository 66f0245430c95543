// Measures what a checkpoint costs the server: wall time of writeCheckpoint
// for a screen of a given size, and the longest the event loop was held up
// meanwhile — the figure that matters, since other sessions wait that long.
// Run: node --expose-gc dist/bench/lib/measure-checkpoint-write.js [rounds]
// With --expose-gc each round starts from a collected heap, so a round does
// not pay for the garbage the previous round (or building the sample) left;
// one warm-up round per case is discarded. Garbage collection during the
// write still counts: it is part of what the write costs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { writeCheckpoint, loadCheckpoint } from '../../src/server/checkpoint/files.js';

export interface WriteMeasurement {
  fileBytes: number;
  writeMs: number;
  /** Longest gap between two turns of the loop seen by a setImmediate ticker. */
  longestBlockMs: number;
  /** monitorEventLoopDelay's maximum (1 ms resolution). */
  histogramMaxMs: number;
  loadMs: number;
  loadLongestBlockMs: number;
}

const SAMPLE_ROW =
  '\x1b[0m\x1b[48;5;236m  \x1b[38;2;80;200;120m✔ build step 테스트\x1b[0m \x1b[7m 日本語 \x1b[27m 🚀 \x1b[1;33mwarn\x1b[0m some log text here\r\n';
const ROWS_PER_PART = 1000;

/**
 * Rows like a busy TUI's after serialization (SGR runs, coloured blanks, CJK,
 * emoji), built the way a serializer builds them: appended one by one, so the
 * string form is a rope that V8 has not flattened yet.
 */
export function sampleScreen(utf8Bytes: number): { rope: string; parts: string[] } {
  const rows = Math.ceil(utf8Bytes / Buffer.byteLength(SAMPLE_ROW));
  let rope = '';
  const parts: string[] = [];
  let part = '';
  for (let i = 0; i < rows; i++) {
    // A fresh string per row, as a serializer makes them, so nothing is shared.
    const row = SAMPLE_ROW.replace('here', `h${i % 10}re`);
    rope += row;
    part += row;
    if ((i + 1) % ROWS_PER_PART === 0) {
      parts.push(part);
      part = '';
    }
  }
  if (part) parts.push(part);
  return { rope, parts };
}

async function withBlockWatch<T>(fn: () => Promise<T>): Promise<{ value: T; longestBlockMs: number; histogramMaxMs: number; ms: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  histogram.enable();
  const started = performance.now();
  const value = await fn();
  const ms = performance.now() - started;
  running = false;
  histogram.disable();
  return { value, longestBlockMs: longest, histogramMaxMs: histogram.max / 1e6, ms };
}

export async function measureCheckpointWrite(dir: string, screen: string | string[]): Promise<WriteMeasurement> {
  const cp = { sessionId: 'measure', generation: 'ab12', offset: 1, cols: 200, rows: 50, createdAt: Date.now(), meta: {}, screen };
  const write = await withBlockWatch(() => writeCheckpoint(dir, cp));
  const load = await withBlockWatch(() => loadCheckpoint(dir, 'measure'));
  if (!load.value.ok) throw new Error(`the checkpoint just written did not load: ${load.value.detail}`);
  return {
    fileBytes: write.value.bytes,
    writeMs: write.ms,
    longestBlockMs: write.longestBlockMs,
    histogramMaxMs: write.histogramMaxMs,
    loadMs: load.ms,
    loadLongestBlockMs: load.longestBlockMs,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 10);
  const dir = mkdtempSync(join(tmpdir(), 'tend-ckpt-measure-'));
  try {
    for (const [size, form] of [[1.5e6, 'rope'], [1.5e6, 'parts'], [4e6, 'rope'], [4e6, 'parts']] as const) {
      const runs: WriteMeasurement[] = [];
      const collect = (globalThis as { gc?: () => void }).gc;
      for (let i = 0; i <= rounds; i++) {
        const sample = sampleScreen(size);
        collect?.();
        const run = await measureCheckpointWrite(dir, form === 'rope' ? sample.rope : sample.parts);
        if (i > 0) runs.push(run); // round 0 warms the heap and the JIT
      }
      const f = (k: keyof WriteMeasurement) => `${median(runs.map((r) => r[k])).toFixed(1)} [${Math.min(...runs.map((r) => r[k])).toFixed(1)}–${Math.max(...runs.map((r) => r[k])).toFixed(1)}]`;
      console.log(`screen as ${form}${(globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc)'}, file ${(runs[0]!.fileBytes / 1e6).toFixed(2)} MB, ${rounds} rounds, median [min–max]:`);
      console.log(`  write ${f('writeMs')} ms, longest loop block ${f('longestBlockMs')} ms (histogram max ${f('histogramMaxMs')} ms)`);
      console.log(`  load  ${f('loadMs')} ms, longest loop block ${f('loadLongestBlockMs')} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
