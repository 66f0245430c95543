// `tend grep PATTERN [TARGET...]` end to end: the real `bin/tend.js`
// against a real server. One line per hit, SESSION:ROW:LINE as `grep -n`
// prints FILE:LINE:TEXT (SESSION is :name, or the id of a session without
// one), sessions in `tend ls` order; exit 1 when nothing matched; notes on
// stderr; --json the API's reply; mistakes said in one line.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchAllReply } from '../../src/protocol/api/index.js';
import { startTestServer, waitFor, type CliResult, type TestServer } from '../server/harness.js';

const SUITE_TIMEOUT_MS = 120_000;
const GREP_USAGE = 'tend grep PATTERN [TARGET...] [--regex] [--ignore-case] [--max N] [--json]';

let t: TestServer;
let unnamed = '';

async function newSession(args: string[]): Promise<string> {
  const r = await t.cli(['new', '--json', '--size', '80x24', ...args]);
  assert.equal(r.code, 0, r.stderr);
  await t.holderPids();
  return (JSON.parse(r.stdout) as { id: string }).id;
}

async function screenHas(target: string, text: string): Promise<boolean> {
  const r = await t.cli(['screen', target]);
  return r.code === 0 && r.stdout.includes(text);
}

/** A usage error: exit 2, nothing on stdout, one `tend: ` line saying `said`, then the usage line when `withUsage`. */
function assertUsageError(r: CliResult, said: RegExp, withUsage: boolean): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines[0]!, said);
  assert.match(lines[0]!, /^tend: (?!tend)/);
  assert.deepEqual(lines.slice(1), withUsage ? [`usage: ${GREP_USAGE}`] : []);
}

before(async () => {
  t = startTestServer();
  await newSession(['--name', 'web', '--', 'sh', '-c', 'echo "GET /a 200"; echo "GET /b 500 error: upstream"; echo "Error: again"; exec sleep 600']);
  unnamed = await newSession(['--', 'sh', '-c', 'echo "db error: timeout"; exec sleep 600']);
  await newSession(['--name', 'calm', '--', 'sh', '-c', 'echo "all good"; exec sleep 600']);
  await waitFor('every session\'s output on its screen', async () =>
    (await screenHas(':web', 'Error: again')) && (await screenHas(unnamed, 'db error')) && (await screenHas(':calm', 'all good')), 30_000);
});

after(async () => {
  await t.dispose();
});

describe('tend grep', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('prints SESSION:ROW:LINE per hit, sessions in list order, and exits 0', async () => {
    const r = await t.cli(['grep', 'error']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `:web:1:GET /b 500 error: upstream\n${unnamed}:0:db error: timeout\n`);
    assert.equal(r.stderr, '');
  });

  test('-i, -e, and TARGETs in any form a target takes', async () => {
    const i = await t.cli(['grep', '-i', 'ERROR']);
    assert.equal(i.stdout, `:web:1:GET /b 500 error: upstream\n:web:2:Error: again\n${unnamed}:0:db error: timeout\n`);
    const e = await t.cli(['grep', '--regex', '^[A-Z]+ /[a-z] [0-9]{3}$']);
    assert.deepEqual([e.code, e.stdout], [0, ':web:0:GET /a 200\n']);
    const limited = await t.cli(['grep', '-i', 'error', unnamed.slice(0, 5), '3']);
    assert.deepEqual([limited.code, limited.stdout], [0, `${unnamed}:0:db error: timeout\n`]);
  });

  test('exits 1 when nothing matched, printing nothing', async () => {
    const none = await t.cli(['grep', 'no-such-text-anywhere']);
    assert.deepEqual([none.code, none.stdout, none.stderr], [1, '', '']);
    const elsewhere = await t.cli(['grep', 'error', ':calm']);
    assert.deepEqual([elsewhere.code, elsewhere.stdout], [1, '']);
  });

  test('--max N keeps each session\'s last N and says on stderr how many matched', async () => {
    const r = await t.cli(['grep', '-i', '-m', '1', 'error']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `:web:2:Error: again\n${unnamed}:0:db error: timeout\n`);
    assert.equal(r.stderr, 'tend: :web: 2 lines matched; these are the last 1 (--max N for more)\n');
  });

  test('--json prints the API\'s reply', async () => {
    const r = await t.cli(['grep', '--json', '-i', 'error']);
    assert.equal(r.code, 0, r.stderr);
    const reply = JSON.parse(r.stdout) as SearchAllReply;
    assert.deepEqual([reply.searched, reply.total, reply.skipped], [3, 3, []]);
    assert.deepEqual(reply.sessions.map((s) => [s.name, s.index, s.status, s.matches]), [
      ['web', 1, 'running', [{ row: 1, line: 'GET /b 500 error: upstream' }, { row: 2, line: 'Error: again' }]],
      [null, 2, 'running', [{ row: 0, line: 'db error: timeout' }]],
    ]);
    assert.equal(reply.sessions[1]!.id, unnamed);
    const none = await t.cli(['grep', '--json', 'no-such-text-anywhere']);
    assert.equal(none.code, 1);
    assert.deepEqual(JSON.parse(none.stdout), { sessions: [], searched: 3, total: 0, skipped: [] });
  });

  test('an unknown TARGET fails in one line with a "did you mean", nothing printed', async () => {
    const r = await t.cli(['grep', 'error', ':webb']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^tend: no session is named ":webb" \(did you mean :web\?\)\n$/);
    const json = await t.cli(['grep', '--json', 'error', ':webb']);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stderr).error.code, 'no_session');
  });

  test('command-line mistakes are usage errors in the verb\'s words', async () => {
    assertUsageError(await t.cli(['grep']), /^tend: missing PATTERN/, true);
    assertUsageError(await t.cli(['grep', '']), /^tend: PATTERN is empty/, false);
    assertUsageError(await t.cli(['grep', '-e', '(']), /^tend: PATTERN is not a regular expression \(--regex\): /, false);
    assertUsageError(await t.cli(['grep', 'x'.repeat(1001)]), /^tend: PATTERN is 1001 characters; tend searches for at most 1000$/, false);
    assertUsageError(await t.cli(['grep', 'x', '--max', '0']), /^tend: --max takes a number of matches from 1 to 10000, not "0"$/, false);
    assertUsageError(await t.cli(['grep', 'x', ':web,:calm']), /^tend: TARGET ":web,:calm" is no session/, false);
    // `tend search` takes the same checks, in its own words.
    assertUsageError(await t.cli(['search', ':web', '-e', '(']), /^tend: TEXT is not a regular expression \(--regex\): /, false);
  });

  test('--help says what it prints and its exit statuses', async () => {
    const help = await t.cli(['grep', '--help']);
    assert.equal(help.code, 0);
    assert.equal(help.stdout.split('\n')[0], GREP_USAGE);
    assert.match(help.stdout, /SESSION:ROW:LINE/);
    assert.match(help.stdout, /\n {2}1 +nothing matched \(as grep\)/);
    const all = await t.cli(['help']);
    assert.match(all.stdout, /\bgrep\b.*every session/);
  });
});
