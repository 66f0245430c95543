// Benchmarks of the browser app, printed as figures (not a test: speed is
// measured here, never asserted):
//   * time from page load to a live, painted terminal for a session with
//     10 000 rows of output (the snapshot carries the last 1 000 of them);
//   * frames dropped while 50 MB of output streams into a visible pane.
// Run after building: node dist/test/web/page-bench.js [--rounds N] [--mb N] [--renderer webgl|dom]
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { browserUnavailable, paneText, startWebHarness, type WebHarness } from './web-harness.js';

/** One display frame at 60 Hz. */
const FRAME_MS = 1000 / 60;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function sendInput(h: WebHarness, id: string, text: string): Promise<void> {
  const res = await h.server.api('POST', `/v1/sessions/${id}/input`, { text });
  if (res.status !== 200) throw new Error(`input: ${JSON.stringify(res.body)}`);
}

/** In the page: wait for the pane to be live, then for two animation frames (painted), and say when. */
const timeToPaintedInPage = (sessionId: string) =>
  new Promise<number>((resolve) => {
    type Dbg = { __tendDebug?: { panes(): Array<{ sessionId: string; status: string; parsedSeq: number | null }> } };
    const g = globalThis as unknown as Dbg & { requestAnimationFrame(cb: () => void): void; performance: { now(): number } };
    const check = () => {
      const pane = g.__tendDebug?.panes().find((p) => p.sessionId === sessionId);
      if (pane && pane.status === 'live' && pane.parsedSeq !== null) g.requestAnimationFrame(() => g.requestAnimationFrame(() => resolve(g.performance.now())));
      else g.requestAnimationFrame(check);
    };
    check();
  });

async function benchTimeToPaint(h: WebHarness, rounds: number, query: string): Promise<void> {
  const id = await h.newSession({ name: 'tall', cols: 120, rows: 40 });
  await sendInput(h, id, 'seq 1 10000; echo TALL-READY\n');
  await waitFor(async () => (await h.serverText(id)).includes('TALL-READY'), { what: 'the 10 000 rows', timeoutMs: 60_000 });
  const context = await h.newContext();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const page = await context.newPage();
    await page.goto(`${h.url}/w/tall${query}`);
    times.push(await page.evaluate(timeToPaintedInPage, id));
    await page.close();
  }
  console.log(`load → live painted terminal, 10 000-row session (snapshot: last 1 000 rows + screen), ${rounds} loads:`);
  console.log(`  median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);
}

async function benchStream(h: WebHarness, megabytes: number, query: string, name: string): Promise<void> {
  const id = await h.newSession({ name, cols: 160, rows: 45 });
  const page: Page = await h.open(`/w/${name}${query}`);
  await waitFor(async () => (await paneText(page, id)) !== null && (await page.evaluate(() => document.querySelector('[data-status="live"]') !== null)), { what: 'the pane' });
  // A frame counter in the page: every animation frame's gap; a gap of k frames drops k − 1.
  await page.evaluate((frameMs) => {
    const g = globalThis as unknown as { requestAnimationFrame(cb: (t: number) => void): void; __benchFrames?: { gaps: number[]; running: boolean }; performance: { now(): number } };
    const state = { gaps: [] as number[], running: true };
    g.__benchFrames = state;
    let last = g.performance.now();
    const tick = (t: number) => {
      state.gaps.push(t - last);
      last = t;
      if (state.running) g.requestAnimationFrame(tick);
    };
    g.requestAnimationFrame(tick);
    void frameMs;
  }, FRAME_MS);
  const bytes = megabytes * 1_000_000;
  const t0 = performance.now();
  await sendInput(h, id, `yes 'the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c ${bytes}; echo; echo STREAM-DONE\n`);
  await waitFor(async () => (await paneText(page, id))?.includes('\nSTREAM-DONE') ?? false, { what: 'the end of the stream', timeoutMs: 600_000, intervalMs: 100 });
  const seconds = (performance.now() - t0) / 1000;
  const result = await page.evaluate((frameMs) => {
    type Dbg = {
      __benchFrames?: { gaps: number[]; running: boolean };
      __tendDebug?: { panes(): Array<{ stats: { snapshots: number; dataBytes: number; dataFrames: number }; renderer: string }> };
    };
    const g = globalThis as unknown as Dbg;
    const state = g.__benchFrames!;
    state.running = false;
    const gaps = state.gaps.slice(1);
    let dropped = 0;
    for (const gap of gaps) dropped += Math.max(0, Math.round(gap / frameMs) - 1);
    const pane = g.__tendDebug!.panes()[0]!;
    return { frames: gaps.length, dropped, longest: Math.max(...gaps), stats: pane.stats, renderer: pane.renderer };
  }, FRAME_MS);
  const expected = result.frames + result.dropped;
  console.log(`${megabytes} MB streamed into a visible ${160}×${45} pane (${result.renderer} renderer):`);
  console.log(`  ${seconds.toFixed(1)} s, ${(megabytes / seconds).toFixed(1)} MB/s end to end`);
  console.log(`  frames painted ${result.frames}, dropped ${result.dropped} of ${expected} (${((100 * result.dropped) / Math.max(1, expected)).toFixed(1)}%), longest frame ${result.longest.toFixed(0)} ms`);
  console.log(`  page parsed ${(result.stats.dataBytes / 1e6).toFixed(1)} MB as DATA in ${result.stats.dataFrames} frames; snapshots ${result.stats.snapshots} (a lagging viewer gets a snapshot instead of the backlog)`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, mb: { type: 'string', default: '50' }, renderer: { type: 'string', default: 'webgl' } } });
  const why = browserUnavailable();
  if (why) {
    console.error(`page-bench: ${why}`);
    process.exit(2);
  }
  const scope = new TestScope();
  try {
    const h = await startWebHarness(scope);
    const query = values.renderer === 'dom' ? '?renderer=dom' : '';
    console.log(`renderer asked for: ${values.renderer} (headless Chromium; with --disable-gpu its WebGL is software)`);
    await benchTimeToPaint(h, Number(values.rounds), query);
    await benchStream(h, Number(values.mb), query, 'stream');
  } finally {
    await scope.dispose();
  }
}

void main();
