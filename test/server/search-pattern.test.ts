// A user's regular expression must never hold the thread that parses every
// session. `(a+)+$` backtracks for minutes on a line of 32 "a"s and a "b";
// run where the screens are parsed, it froze every session's screen. Here a
// real server gets that search while another session prints: the other
// session's output reaches its screen while the search is still out, and
// the search answers with an error that says what is wrong with the pattern.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, type TestServer } from './harness.js';

const BACKTRACKING_LINE = `${'a'.repeat(32)}b`;

async function screenText(t: TestServer, target: string): Promise<string> {
  const res = await t.api<{ text: string }>('GET', `/v1/sessions/${encodeURIComponent(target)}/screen`);
  assert.equal(res.status, 200);
  return res.body.text;
}

function searchPath(target: string, pattern: string, regex: boolean): string {
  const q = new URLSearchParams({ q: pattern });
  if (regex) q.set('regex', '1');
  return `/v1/sessions/${encodeURIComponent(target)}/search?${q}`;
}

async function newSession(t: TestServer, name: string, argv: string[]): Promise<void> {
  const created = await t.cli(['new', '--name', name, '--size', '80x24', '--', ...argv]);
  assert.equal(created.code, 0, created.stderr);
  await t.holderPids();
}

test('a backtracking pattern stops with a clear error and never freezes other screens', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    await newSession(t, 'logs', ['sh']);
    // Another session prints a numbered line every 50 ms all along.
    await newSession(t, 'other', ['sh', '-c', 'i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.05; done']);
    // printf's format keeps the typed command from holding the line itself.
    assert.equal((await t.cli(['send', ':logs', '--enter', `printf '%sb\\n' ${'a'.repeat(32)}`])).code, 0);
    await waitFor('the line on the logs screen', async () => (await screenText(t, ':logs')).split('\n').includes(BACKTRACKING_LINE));

    const lastTick = async (): Promise<number> => Math.max(0, ...[...(await screenText(t, ':other')).matchAll(/tick-(\d+)/g)].map((m) => Number(m[1])));
    const tickBefore = await waitFor('the other session printing', lastTick);
    const started = performance.now();
    let answeredAfterMs: number | null = null;
    const search = t.api<{ error: { code: string; message: string } }>('GET', searchPath(':logs', '(a+)+$', true)).then((res) => {
      answeredAfterMs = performance.now() - started;
      return res;
    });

    // Meanwhile the other session's screen keeps up with what it prints.
    const tickAfter = await waitFor('the other session\'s next lines on its screen', async () => ((await lastTick()) >= tickBefore + 3 ? lastTick() : 0), 30_000);
    const otherSeenAfterMs = performance.now() - started;
    const outstandingThen = answeredAfterMs === null;

    const res = await search;
    console.log(`other screen went from tick-${tickBefore} to tick-${tickAfter} ${otherSeenAfterMs.toFixed(0)} ms after the search began (search still out: ${outstandingThen}); ` +
      `the search answered after ${answeredAfterMs!.toFixed(0)} ms`);
    assert.ok(outstandingThen, 'the other screen was updated while the search ran, not after it');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'pattern_too_slow');
    assert.match(res.body.error.message, /backtracks/);
    assert.ok(answeredAfterMs! < 20_000, `answered after ${answeredAfterMs} ms`);

    // The CLI says the same, as a usage error.
    const cli = await t.cli(['search', ':logs', '--regex', '(a+)+$']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /backtracks/);

    // Patterns that run in linear time, and those that need backtracking but do not run away, still work.
    const plain = await t.api<{ matches: Array<{ line: string }>; total: number }>('GET', searchPath(':logs', 'a+b$', true));
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.body.matches.map((m) => m.line), [BACKTRACKING_LINE]);
    const backreference = await t.api<{ matches: Array<{ line: string }> }>('GET', searchPath(':logs', '^(a)\\1+b$', true));
    assert.equal(backreference.status, 200);
    assert.deepEqual(backreference.body.matches.map((m) => m.line), [BACKTRACKING_LINE]);
    const text = await t.api<{ total: number }>('GET', searchPath(':other', 'tick-1', false));
    assert.equal(text.status, 200);
    assert.ok(text.body.total >= 1);
  } finally {
    await t.dispose();
  }
});
