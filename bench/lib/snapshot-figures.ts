// Figures for snapshots (not assertions): `node dist/bench/lib/snapshot-figures.js`.
// Screen only and with 1 000 / 10 000 rows of scrollback at 80x24 and 200x50: time to
// serialize, size, time to apply into a fresh terminal, and the longest single event-loop
// block while snapshotAsync serializes the whole buffer.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Screen } from '../../src/server/screen/screen.js';
import { terminalFromSnapshot } from '../../test/support/terminal-from-snapshot.js';

const ROUNDS = 5;

function filledRows(cols: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const fg = 31 + (i % 7);
    let row = `\x1b[${fg}m${String(i).padStart(6, '0')} \x1b[1;4${i % 8}m`;
    while (row.length < cols + 20) row += `word${i % 13} \x1b[0;3${(i + row.length) % 8}m`;
    out += row.slice(0, cols + 20) + '\x1b[0m\r\n';
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  for (const [cols, rows] of [[80, 24], [200, 50]] as const) {
    const screen = new Screen({ cols, rows, scrollbackRows: 10_000 });
    screen.write(filledRows(cols, 10_000 + rows), { live: false });
    await screen.flush();
    for (const scrollbackRows of [0, 1_000, 10_000]) {
      const times: number[] = [];
      const applies: number[] = [];
      let bytes = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const t0 = performance.now();
        const snap = screen.snapshot({ scrollbackRows });
        times.push(performance.now() - t0);
        bytes = Buffer.byteLength(snap.data);
        const t1 = performance.now();
        const restored = await terminalFromSnapshot(snap);
        applies.push(performance.now() - t1);
        restored.dispose();
      }
      console.log(`${cols}x${rows} scrollback ${scrollbackRows}: snapshot ${median(times).toFixed(2)} ms [${Math.min(...times).toFixed(2)}–${Math.max(...times).toFixed(2)}], ${bytes} bytes, apply ${median(applies).toFixed(1)} ms`);
    }
    const blocks: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      let longest = 0;
      let last = performance.now();
      const probe = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 0);
      histogram.enable();
      await screen.snapshotAsync();
      histogram.disable();
      clearInterval(probe);
      blocks.push(Math.max(longest, histogram.max / 1e6));
    }
    console.log(`${cols}x${rows} snapshotAsync of 10 000 rows: longest event-loop block ${median(blocks).toFixed(1)} ms [${Math.min(...blocks).toFixed(1)}–${Math.max(...blocks).toFixed(1)}]`);
    screen.dispose();
  }
}

await main();
