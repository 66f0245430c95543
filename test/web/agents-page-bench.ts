// What the dashboard's agent cards cost the page, printed as figures (not a
// test: speed is measured here, never asserted). N sessions each print a line
// every 100 ms, as an agent streaming its answer does, and each is made a busy
// Claude by its hook's event, so the dashboard shows N cards with live
// previews. For 10 s the page's animation frames are counted (a gap of k
// frames drops k − 1) and Chromium's own main-thread figures read
// (Performance.getMetrics: TaskDuration, ScriptDuration, LayoutDuration), with
// no agents first (the plain table) for comparison.
// Run after building: node dist/test/web/agents-page-bench.js [--sessions N] [--seconds S] [--height PX]
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { browserUnavailable, startWebHarness, type WebHarness } from './web-harness.js';

/** One display frame at 60 Hz. */
const FRAME_MS = 1000 / 60;
const LINE_EVERY_S = 0.1;

interface Figures {
  frames: number;
  dropped: number;
  longestMs: number;
  /** Main-thread time per second of wall time, in ms. */
  taskMsPerS: number;
  scriptMsPerS: number;
  layoutMsPerS: number;
  previews: number;
}

type Cdp = Awaited<ReturnType<ReturnType<Page['context']>['newCDPSession']>>;

async function metrics(cdp: Cdp): Promise<Record<string, number>> {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

async function measure(page: Page, seconds: number): Promise<Figures> {
  await page.evaluate(() => {
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
  });
  // One CDP session for both readings: enabling the domain again starts its counters over.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const before = await metrics(cdp);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const wallS = (performance.now() - t0) / 1000;
  const after = await metrics(cdp);
  await cdp.detach();
  const frames = await page.evaluate((frameMs) => {
    type Dbg = { __benchFrames?: { gaps: number[]; running: boolean }; __tendDebug?: { previews?(): unknown[] } };
    const g = globalThis as unknown as Dbg;
    const state = g.__benchFrames!;
    state.running = false;
    const gaps = state.gaps.slice(1);
    let dropped = 0;
    for (const gap of gaps) dropped += Math.max(0, Math.round(gap / frameMs) - 1);
    return { frames: gaps.length, dropped, longestMs: Math.max(...gaps), previews: g.__tendDebug?.previews?.().length ?? 0 };
  }, FRAME_MS);
  const perS = (name: string) => ((after[name]! - before[name]!) * 1000) / wallS;
  return { ...frames, taskMsPerS: perS('TaskDuration'), scriptMsPerS: perS('ScriptDuration'), layoutMsPerS: perS('LayoutDuration') + perS('RecalcStyleDuration') };
}

function report(what: string, f: Figures): void {
  const expected = f.frames + f.dropped;
  console.log(`${what}:`);
  console.log(`  previews subscribed ${f.previews}; frames ${f.frames}, dropped ${f.dropped} of ${expected} (${((100 * f.dropped) / Math.max(1, expected)).toFixed(1)}%), longest ${f.longestMs.toFixed(0)} ms`);
  console.log(`  main thread busy ${f.taskMsPerS.toFixed(0)} ms/s (script ${f.scriptMsPerS.toFixed(0)}, style and layout ${f.layoutMsPerS.toFixed(0)})`);
}

async function startStreaming(h: WebHarness, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await h.newSession({
      name: `agent${i + 1}`,
      argv: ['sh', '-c', `i=0; while :; do i=$((i+1)); echo "agent ${i + 1} line $i: the quick brown fox jumps over the lazy dog"; sleep ${LINE_EVERY_S}; done`],
    });
    ids.push(id);
  }
  return ids;
}

async function makeBusyAgents(h: WebHarness, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await h.server.api('POST', `/v1/sessions/${id}/agent/events?agent=claude&event=UserPromptSubmit`, { session_id: `bench-${id}`, cwd: '/home/u/project', hook_event_name: 'UserPromptSubmit', prompt: 'stream' });
    if (res.status !== 200) throw new Error(`hook event: ${JSON.stringify(res.body)}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: '20' }, seconds: { type: 'string', default: '10' }, height: { type: 'string', default: '800' } } });
  const why = browserUnavailable();
  if (why) {
    console.error(`agents-page-bench: ${why}`);
    process.exit(2);
  }
  const count = Number(values.sessions);
  const seconds = Number(values.seconds);
  const height = Number(values.height);
  const scope = new TestScope();
  try {
    const h = await startWebHarness(scope);
    const ids = await startStreaming(h, count);
    const context = await h.browser.newContext({ viewport: { width: 1280, height }, colorScheme: 'dark' });
    scope.defer(() => context.close().catch(() => undefined));
    const page = await context.newPage();
    await page.goto(`${h.url}/`);
    await page.locator(`tr[data-session="${ids[ids.length - 1]}"]`).waitFor();
    console.log(`${count} sessions, each printing a line every ${LINE_EVERY_S * 1000} ms; dashboard 1280×${height}, ${seconds} s each (headless Chromium, --disable-gpu)`);
    report('no agents (the session table alone)', await measure(page, seconds));
    await makeBusyAgents(h, ids);
    await waitFor(async () => (await page.locator('.agent-card').count()) === count, { what: `${count} agent cards` });
    await waitFor(async () => (await page.evaluate(() => (globalThis as unknown as { __tendDebug?: { previews(): Array<{ status: string }> } }).__tendDebug?.previews().filter((p) => p.status === 'live').length ?? 0)) > 0, {
      what: 'live previews',
    });
    report(`${count} busy agents: their cards and the previews on (or near) the screen`, await measure(page, seconds));
  } finally {
    await scope.dispose();
  }
}

void main();
