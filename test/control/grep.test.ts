// GET /v1/search: every session's history searched at once, with the engine
// and limits of one session's search. A real server, real holders: sessions
// named and not, one whose program has exited (its history is still
// searched), one with nothing to find; the `sessions` limit and its unknown
// targets; a pattern that backtracks, which fails the whole search
// promptly while another session's output keeps reaching its screen; and
// the budget of the whole search, which stops the session being searched.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchAllReply } from '../../src/protocol/api/index.js';
import { startTestServer, waitFor, type TestServer } from '../server/harness.js';

const SUITE_TIMEOUT_MS = 180_000;
/** Lines the exited session prints after its match: more than its 24 rows, so the match is in its history, not on its screen. */
const LINES_AFTER_EXITED_MATCH = 100;

let t: TestServer;
/** The id of the session started without a name. */
let unnamed = '';

function searchPath(query: Record<string, string>): string {
  return `/v1/search?${new URLSearchParams(query)}`;
}

async function searchAll(query: Record<string, string>): Promise<SearchAllReply> {
  const res = await t.api<SearchAllReply>('GET', searchPath(query));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Each session with hits as `label: line, line`, in the reply's order. */
function hitLines(reply: SearchAllReply): string[] {
  return reply.sessions.map((s) => `${s.name === null ? s.id : `:${s.name}`}: ${s.matches.map((m) => m.line).join(', ')}`);
}

async function newSession(args: string[]): Promise<string> {
  const r = await t.cli(['new', '--json', '--size', '80x24', ...args]);
  assert.equal(r.code, 0, r.stderr);
  await t.holderPids();
  return (JSON.parse(r.stdout) as { id: string }).id;
}

async function screenHas(target: string, text: string): Promise<boolean> {
  const r = await t.cli(['screen', target, '--scrollback', '1000']);
  return r.code === 0 && r.stdout.includes(text);
}

before(async () => {
  t = startTestServer();
  await newSession(['--name', 'alpha', '--', 'sh', '-c', 'echo needle-one; echo Needle-Two; echo hay; exec sleep 600']);
  unnamed = await newSession(['--', 'sh', '-c', 'echo needle-three; exec sleep 600']);
  await newSession(['--name', 'quiet', '--', 'sh', '-c', 'echo only hay; exec sleep 600']);
  await newSession(['--name', 'done', '--', 'sh', '-c', `echo needle-exited; seq 1 ${LINES_AFTER_EXITED_MATCH}; exit 3`]);
  await waitFor('every session\'s output on its screen', async () =>
    (await screenHas(':alpha', 'hay')) && (await screenHas(unnamed, 'needle-three')) && (await screenHas(':quiet', 'only hay')) && (await screenHas(':done', String(LINES_AFTER_EXITED_MATCH))), 30_000);
  await waitFor('the exited session to be listed as exited', async () => {
    const r = await t.api<{ status: string }>('GET', '/v1/sessions/%3Adone');
    return r.body.status === 'exited';
  });
});

after(async () => {
  await t.dispose();
});

describe('GET /v1/search', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('every session searched: hits per session in list order, with its id, name, index and status; the exited one\'s history too', async () => {
    const reply = await searchAll({ q: 'needle' });
    assert.deepEqual(hitLines(reply), [':alpha: needle-one', `${unnamed}: needle-three`, ':done: needle-exited']);
    assert.deepEqual([reply.searched, reply.total, reply.skipped], [4, 3, []]);
    const [alpha, plain, done] = reply.sessions;
    assert.deepEqual([alpha!.name, alpha!.index, alpha!.status], ['alpha', 1, 'running']);
    assert.deepEqual([plain!.id, plain!.name, plain!.index], [unnamed, null, 2]);
    assert.deepEqual([done!.name, done!.index, done!.status], ['done', 4, 'exited']);
    // The exited session's match scrolled off its screen: it was found in its history, at its first row.
    assert.deepEqual(done!.matches, [{ row: 0, line: 'needle-exited' }]);
    assert.ok(done!.endRow > LINES_AFTER_EXITED_MATCH, `rows searched: [${done!.firstRow}, ${done!.endRow})`);
    for (const s of reply.sessions) assert.deepEqual([s.total, s.truncated, s.dropped], [s.matches.length, false, 0]);
    const listed = await t.api<Array<{ id: string; index: number }>>('GET', '/v1/sessions');
    assert.deepEqual(reply.sessions.map((s) => s.index), reply.sessions.map((s) => listed.body.find((l) => l.id === s.id)!.index));
  });

  test('ignore-case, regex, and max per session', async () => {
    assert.deepEqual(hitLines(await searchAll({ q: 'NEEDLE-t', 'ignore-case': '1' })), [':alpha: Needle-Two', `${unnamed}: needle-three`]);
    assert.deepEqual(hitLines(await searchAll({ q: '^needle-(one|exited)$', regex: '1' })), [':alpha: needle-one', ':done: needle-exited']);
    const capped = await searchAll({ q: 'needle', 'ignore-case': '1', max: '1' });
    assert.deepEqual(hitLines(capped), [':alpha: Needle-Two', `${unnamed}: needle-three`, ':done: needle-exited']);
    assert.deepEqual([capped.sessions[0]!.total, capped.sessions[0]!.truncated, capped.total], [2, true, 4]);
  });

  test('nothing found: no sessions, every one searched', async () => {
    const none = await searchAll({ q: 'no-such-text-anywhere' });
    assert.deepEqual([none.sessions, none.searched, none.total, none.skipped], [[], 4, 0, []]);
  });

  test('sessions= limits the search to those targets (any form a target takes), still in list order', async () => {
    const limited = await searchAll({ q: 'needle', sessions: `4,${unnamed.slice(0, 6)},:quiet` });
    assert.deepEqual(hitLines(limited), [`${unnamed}: needle-three`, ':done: needle-exited']);
    assert.deepEqual([limited.searched, limited.total], [3, 2]);
    const once = await searchAll({ q: 'needle', sessions: 'alpha,:alpha' });
    assert.deepEqual([hitLines(once), once.searched], [[':alpha: needle-one'], 1]);
  });

  test('an unknown target is 404 no_session with candidates; bad parameters are 400 naming them', async () => {
    const unknown = await t.api('GET', searchPath({ q: 'needle', sessions: ':alpha,:alpah' }));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'no_session');
    assert.match(unknown.body.error.message, /:alpah/);
    assert.ok(unknown.body.error.candidates.includes(':alpha'), JSON.stringify(unknown.body.error));
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /"q"/],
      [{ q: '' }, /"q"/],
      [{ q: 'x'.repeat(1001) }, /"q" is at most 1000/],
      [{ q: '(', regex: '1' }, /"q" is not a regular expression/],
      [{ q: 'x', max: '0' }, /"max"/],
      [{ q: 'x', max: '10001' }, /"max"/],
      [{ q: 'x', sessions: '' }, /"sessions"/],
      [{ q: 'x', sessions: ':alpha,,:quiet' }, /"sessions"/],
    ];
    for (const [query, said] of cases) {
      const res = await t.api('GET', searchPath(query));
      assert.equal(res.status, 400, `${JSON.stringify(query)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'bad_request');
      assert.match(res.body.error.message, said);
    }
  });
});

describe('GET /v1/search with a pattern that backtracks', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('fails the whole search with 400 pattern_too_slow, while another session\'s output still reaches its screen', async () => {
    const s = startTestServer();
    try {
      const screenOf = async (target: string): Promise<string> => (await s.api<{ text: string }>('GET', `/v1/sessions/${encodeURIComponent(target)}/screen`)).body.text;
      const backtracking = `${'a'.repeat(32)}b`;
      const started = async (args: string[]) => {
        assert.equal((await s.cli(['new', '--size', '80x24', ...args])).code, 0);
        await s.holderPids();
      };
      // A session before it with a match: the search gets that far, then the pattern stops it all.
      await started(['--name', 'first', '--', 'sh', '-c', 'echo aab; exec sleep 600']);
      await started(['--name', 'logs', '--', 'sh', '-c', `printf '%sb\\n' ${'a'.repeat(32)}; exec sleep 600`]);
      await started(['--name', 'ticks', '--', 'sh', '-c', 'i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.05; done']);
      await waitFor('the line on the logs screen', async () => (await screenOf(':logs')).split('\n').includes(backtracking));
      const lastTick = async (): Promise<number> => Math.max(0, ...[...(await screenOf(':ticks')).matchAll(/tick-(\d+)/g)].map((m) => Number(m[1])));
      const tickBefore = await waitFor('the ticking session printing', lastTick);

      let answered = false;
      const search = s.api<{ error: { code: string; message: string } }>('GET', `/v1/search?${new URLSearchParams({ q: '(a+)+$', regex: '1' })}`).then((res) => {
        answered = true;
        return res;
      });
      // Meanwhile the ticking session's screen keeps up with what it prints.
      await waitFor('the ticking session\'s next lines on its screen', async () => (await lastTick()) >= tickBefore + 3, 30_000);
      assert.ok(!answered, 'the other screen was updated while the search ran, not only after it');

      const res = await search;
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'pattern_too_slow');
      assert.match(res.body.error.message, /backtracks/);

      // The same pattern from the CLI: a usage error, one line, no stack.
      const cli = await s.cli(['grep', '-e', '(a+)+$']);
      assert.equal(cli.code, 2);
      assert.match(cli.stderr, /^tend: .*backtracks/);
      assert.doesNotMatch(cli.stderr, /\n\s+at /);
      // A pattern that runs in linear time finds the line in that session.
      const linear = await s.api<SearchAllReply>('GET', `/v1/search?${new URLSearchParams({ q: 'a+b$', regex: '1', sessions: ':logs,:first' })}`);
      assert.deepEqual(linear.body.sessions.map((x) => [x.name, x.matches.map((m) => m.line)]), [['first', ['aab']], ['logs', [backtracking]]]);
    } finally {
      await s.dispose();
    }
  });
});

describe('GET /v1/search and a cold session', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('a session whose holder is gone is searched in the screen and history it kept', async () => {
    const s = startTestServer();
    try {
      const created = await s.cli(['new', '--json', '--size', '80x24', '--name', 'frozen', '--', 'sh', '-c', `echo needle-cold; seq 1 ${LINES_AFTER_EXITED_MATCH}; exec sleep 600`]);
      assert.equal(created.code, 0, created.stderr);
      const { holderPid } = JSON.parse(created.stdout) as { holderPid: number };
      await s.holderPids();
      await waitFor('its output on its screen', async () => (await s.cli(['screen', ':frozen'])).stdout.includes(String(LINES_AFTER_EXITED_MATCH)));
      process.kill(holderPid, 'SIGKILL');
      await waitFor('the session to be cold', async () => (await s.api<{ status: string }>('GET', '/v1/sessions/%3Afrozen')).body.status === 'cold');
      const res = await s.api<SearchAllReply>('GET', `/v1/search?${new URLSearchParams({ q: 'needle' })}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.sessions.map((x) => [x.name, x.status, x.matches]), [['frozen', 'cold', [{ row: 0, line: 'needle-cold' }]]]);
    } finally {
      await s.dispose();
    }
  });
});

/**
 * Rows of the session whose search the budget cuts, every one kept (TEND_SCROLLBACK_ROWS):
 * reading them took ~1 s on a busy 2-core machine, far beyond SHORT_BUDGET_MS on any.
 */
const LONG_HISTORY_ROWS = 200_000;
/** The whole search's budget in this test (TEND_SEARCH_ALL_BUDGET_MS). */
const SHORT_BUDGET_MS = 20;

describe('GET /v1/search and its budget', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('the session being searched when the budget is spent stops there (search_too_long); those after it are not begun (budget_spent)', async () => {
    const s = startTestServer({ TEND_SEARCH_ALL_BUDGET_MS: String(SHORT_BUDGET_MS), TEND_SCROLLBACK_ROWS: String(LONG_HISTORY_ROWS + 10_000) });
    try {
      for (const [name, script] of [['long', `seq 1 ${LONG_HISTORY_ROWS}; echo needle-long`], ['after', 'echo needle-after']]) {
        assert.equal((await s.cli(['new', '--size', '80x24', '--name', name!, '--', 'sh', '-c', `${script}; exec sleep 600`])).code, 0);
      }
      await s.holderPids();
      for (const name of ['long', 'after']) {
        await waitFor(`:${name}'s needle on its screen`, async () => (await s.cli(['screen', `:${name}`])).stdout.includes(`needle-${name}`), 60_000);
      }
      const res = await s.api<SearchAllReply>('GET', `/v1/search?${new URLSearchParams({ q: 'needle' })}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual([res.body.sessions, res.body.searched, res.body.total], [[], 0, 0]);
      assert.deepEqual(res.body.skipped.map((x) => [x.name, x.reason]), [['long', 'search_too_long'], ['after', 'budget_spent']]);
      const [cut, notBegun] = res.body.skipped;
      assert.match(cut!.message, new RegExp(`the search of every session reached its ${SHORT_BUDGET_MS} ms .*\`tend search :long TEXT\``));
      assert.match(notBegun!.message, /^not searched: .*\`tend search :after TEXT\`/);
      // One session's own search has its own budget, and reads the whole history.
      const alone = await s.api<{ total: number; firstRow: number; endRow: number }>('GET', `/v1/sessions/%3Along/search?${new URLSearchParams({ q: 'needle' })}`);
      assert.equal(alone.status, 200, JSON.stringify(alone.body));
      assert.equal(alone.body.total, 1);
      assert.ok(alone.body.firstRow === 0 && alone.body.endRow > LONG_HISTORY_ROWS, `rows searched: [${alone.body.firstRow}, ${alone.body.endRow})`);
    } finally {
      await s.dispose();
    }
  });
});
