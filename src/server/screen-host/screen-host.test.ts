// The screen host on its real worker thread: what the server's loop writes
// is parsed in order, reads see every byte written before them, a snapshot's
// cut says exactly which writes it holds, events come back, checkpoints
// share history blocks and restore exactly, and a dead host fails loudly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ScreenHost } from './screen-host.js';
import { MAX_PATTERN_THREADS, PATTERN_BATCH_DEADLINE_MS } from './pattern-thread.js';
import type { HostedScreen } from './hosted-screen.js';
import type { FinishedCommand } from './messages.js';

function startHost(t: { after(fn: () => void): void }, budget = 64 * 1024 * 1024, laneBytes?: number) {
  const fatal: Error[] = [];
  const host = new ScreenHost({ historyBudgetBytes: budget, laneBytes, onFatal: (err) => fatal.push(err) });
  t.after(() => host.dispose());
  return { host, fatal };
}

const enc = (s: string) => new TextEncoder().encode(s);
/** A slow key interval for someone typing (keys come every 150-300 ms). */
const PERSON_KEY_INTERVAL_MS = 300;

/** Resolves once `predicate` holds, checking after each event from the host. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function plainText(screen: HostedScreen, scrollbackRows: number): Promise<string> {
  return (await screen.text({ scrollbackRows, ansi: false })).text;
}

describe('screen host', () => {
  test('writes are parsed in order, each callback once; reads see every write before them', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 40, rows: 5 });
    const parsed: number[] = [];
    for (let i = 0; i < 50; i++) screen.write(enc(`line ${i}\r\n`), { live: true }, () => parsed.push(i));
    assert.ok(screen.backlogBytes > 0, 'the bytes wait for the host');
    const text = await plainText(screen, 100);
    assert.deepEqual(parsed, [...Array(50).keys()], 'every callback, in order, before the read answered');
    assert.equal(screen.backlogBytes, 0);
    assert.ok(text.startsWith('line 0\nline 1\n'), text.slice(0, 40));
    assert.ok(text.includes('line 48\nline 49'), 'the last line is there');
  });

  test('the count of a small parse nothing waits for waits for company, so a key typed at a person\'s pace does not wake the loop twice', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 40, rows: 5 });
    await screen.flush();
    // one key's echo, and nothing asked of the host after it: a person types the next key 150-300 ms later
    const written = performance.now();
    let countAfterMs = -1;
    screen.write(enc('x'), { live: true }, () => (countAfterMs = performance.now() - written));
    await until(() => countAfterMs >= 0, "the echo's parsed count");
    assert.ok(countAfterMs >= PERSON_KEY_INTERVAL_MS, `the count came ${countAfterMs.toFixed(0)} ms after the write, before a person's next key`);
    assert.equal(screen.backlogBytes, 0);
  });

  test('writes that find the byte lane full go with the batch, and both arrive in order, byte-exact', async (t) => {
    // A lane of 100 bytes: the first lines go through it, wrapping; the rest of
    // the turn's lines find it full and travel in the batch's own buffer.
    const { host } = startHost(t, undefined, 100);
    const screen = host.open({ cols: 40, rows: 5 });
    const lines = Array.from({ length: 400 }, (_, i) => `row ${i}:${'#'.repeat(i % 23)}`);
    let parsed = 0;
    for (let round = 0; round < 4; round++) {
      // four turns, so the lane is released and reused (it wraps) between them
      for (const line of lines.slice(round * 100, (round + 1) * 100)) screen.write(enc(`${line}\r\n`), { live: true }, () => parsed++);
      await screen.flush();
    }
    assert.equal(parsed, 400);
    assert.equal(await plainText(screen, 1000), lines.join('\n'));
  });

  test('flood-sized writes from several screens at once come out byte-exact while their copies are reused', async (t) => {
    // Writes of 4–64 KiB are copied into slabs the host hands to the next
    // writes once parsed: one given back too early would show as another
    // screen's or a later write's rows.
    const { host } = startHost(t);
    const screens = Array.from({ length: 3 }, () => host.open({ cols: 80, rows: 5, scrollbackRows: 20_000 }));
    const expected: string[][] = screens.map(() => []);
    for (let write = 0; write < 30; write++) {
      screens.forEach((screen, s) => {
        const lines = Array.from({ length: 150 + ((write * 37 + s * 11) % 700) }, (_, i) => `s${s} w${write} r${i}:${String.fromCharCode(97 + ((i + s) % 26)).repeat(i % 50)}`);
        expected[s]!.push(...lines);
        const bytes = enc(lines.map((l) => `${l}\r\n`).join(''));
        assert.ok(bytes.length >= 4096 && bytes.length <= 64 * 1024, `write of ${bytes.length} bytes`);
        screen.write(bytes, { live: true });
      });
      if (write % 5 === 4) await screens[0]!.flush(); // some turns apart, some together
    }
    for (const [s, screen] of screens.entries()) assert.equal(await plainText(screen, 20_000), expected[s]!.join('\n'), `screen ${s}`);
  });

  test("a snapshot's cut runs after the callbacks of the writes it holds and before any later one's", async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 40, rows: 5 });
    let parsedWrites = 0;
    for (let i = 0; i < 20; i++) screen.write(enc(`a${i} `), { live: true }, () => parsedWrites++);
    let atCut = -1;
    const snap = screen.snapshot({ scrollbackRows: 0 }, () => (atCut = parsedWrites));
    for (let i = 0; i < 20; i++) screen.write(enc('later '), { live: true }, () => parsedWrites++);
    const { snapshot, modes } = await snap;
    assert.equal(atCut, 20, 'the cut saw exactly the writes before the snapshot parsed');
    assert.ok(snapshot.data.includes('a19'), 'the snapshot holds the writes before it');
    assert.ok(!snapshot.data.includes('later'), 'and none after');
    assert.equal(modes.alternateScreen, false);
    await screen.flush();
    assert.equal(parsedWrites, 40);
  });

  test('answers to queries go back for live bytes only; titles and cwd come back', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 40, rows: 5 });
    const replies: string[] = [];
    const titles: string[] = [];
    screen.onReply((b) => replies.push(new TextDecoder().decode(b)));
    screen.onTitle((title) => titles.push(title));
    screen.write(enc('\x1b[6n'), { live: false }); // replayed: already answered once
    screen.write(enc('ab\x1b[6n'), { live: true });
    screen.write(enc('\x1b]2;built\x07\x1b]7;file://host/tmp/work\x07'), { live: true });
    await screen.flush();
    assert.deepEqual(replies, ['\x1b[1;3R']);
    assert.deepEqual(titles, ['built']);
    assert.equal(screen.title, 'built');
    assert.equal(screen.cwd, '/tmp/work');
  });

  test('a resize applies after the bytes written before it', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 20, rows: 4 });
    screen.write(enc('0123456789012345678\r\n'), { live: true });
    screen.resize(10, 4);
    assert.equal(screen.cols, 10, 'the asked size at once');
    // Parsed at 20 columns, then reflowed: one line wrapped in two.
    const r = await screen.text({ scrollbackRows: 0, ansi: false });
    assert.equal(r.cols, 10);
    assert.ok(r.text.startsWith('0123456789\n012345678'), JSON.stringify(r.text));
  });

  test('commands: marks are indexed; a watched command comes back finished with its output', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 40, rows: 10 });
    const finished: FinishedCommand[] = [];
    const A = '\x1b]133;A\x07', B = '\x1b]133;B\x07', C = '\x1b]133;C\x07';
    const D = (code: number) => `\x1b]133;D;${code}\x07`;
    screen.write(enc(`${A}$ ${B}true\r\n${C}${D(0)}`), { live: true });
    assert.equal(await screen.commands.lastNumber(), 1);
    const watch = screen.commands.onCommandFinished((c) => finished.push(c));
    screen.write(enc(`${A}$ ${B}echo hi\r\n${C}hi\r\n${D(3)}${A}$ ${B}`), { live: true });
    await until(() => finished.length === 1, 'the finished command');
    assert.deepEqual({ ...finished[0], startedAt: 0, endedAt: 0 }, { number: 2, commandLine: 'echo hi', cwd: null, startedAt: 0, endedAt: 0, exitCode: 3, output: 'hi\n' });
    const state = await screen.commands.state();
    assert.deepEqual(state.commands.map((c) => c.number), [1, 2]);
    assert.equal(state.atPrompt, true);
    assert.deepEqual(await screen.commands.output(2), { text: 'hi\n', complete: true });
    assert.equal(await screen.commands.output(9), null);
    watch.dispose();
  });

  test('a checkpoint hands its history blocks over in shared memory, and a restore from it reads the same', async (t) => {
    const { host } = startHost(t);
    const options = { cols: 30, rows: 5, scrollbackRows: 10_000, liveScrollbackRows: 50 };
    const screen = host.open(options);
    let lines = '';
    for (let i = 0; i < 2000; i++) lines += `\x1b[3${i % 8}mrow ${i}\x1b[0m\r\n`;
    screen.write(enc(lines), { live: true });
    const cp = await screen.checkpoint();
    assert.ok(cp.history.blocks.length > 0, 'rows past the live ones are history');
    for (const b of cp.history.blocks) {
      assert.ok(b.data.buffer instanceof SharedArrayBuffer, 'block bytes are shared, not copied');
      assert.ok(b.starts.buffer instanceof SharedArrayBuffer);
    }
    assert.equal(cp.history.state.endRow, cp.history.blocks.reduce((n, b) => n + b.rows, 0) + cp.history.state.firstRow);
    const { screen: restored } = await host.restore({
      options,
      snapshot: cp.snapshot,
      archive: false,
      history: { state: cp.history.state, blocks: cp.history.blocks },
      commands: cp.commands,
    });
    const want = await screen.text({ scrollbackRows: 10_000, ansi: true });
    const got = await restored.text({ scrollbackRows: 10_000, ansi: true });
    assert.equal(got.text, want.text);
    assert.deepEqual(got.scrollback, want.scrollback);
    // The budget's use is reported a moment after it changes.
    await until(() => host.stats.historyBytes > 0, 'the history bytes reported');
    assert.equal(host.stats.historyBudgetBytes, 64 * 1024 * 1024);
  });

  test('search runs in the host with the query as data', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 30, rows: 5, scrollbackRows: 1000 });
    screen.write(enc('alpha 1\r\nBeta 2\r\nalpha 3\r\ngamma\r\n'), { live: true });
    const plain = await screen.search({ pattern: 'alpha', regex: false, ignoreCase: false }, 10);
    assert.deepEqual(plain.matches.map((m) => m.line), ['alpha 1', 'alpha 3']);
    const folded = await screen.search({ pattern: 'beta', regex: false, ignoreCase: true }, 10);
    assert.deepEqual(folded.matches.map((m) => m.line), ['Beta 2']);
    const re = await screen.search({ pattern: '^\\w+ \\d$', regex: true, ignoreCase: false }, 1);
    assert.deepEqual([re.total, re.matches.map((m) => m.line)], [3, ['alpha 3']]);
  });

  test('a search given a budget stops at it (search_too_long), plain or regex; without one it reads every row', async (t) => {
    const { host } = startHost(t);
    const screen = host.open({ cols: 30, rows: 5, scrollbackRows: 10_000 });
    let text = '';
    for (let i = 0; i < 3000; i++) text += `row ${i}\r\n`;
    screen.write(enc(text), { live: true });
    for (const regex of [false, true]) {
      // A budget of 0 is spent at the first clock check, 64 rows in: the budget reached the screen's search.
      await assert.rejects(screen.search({ pattern: 'row', regex, ignoreCase: false }, 10, 0),
        (err: Error & { searchStopped?: string }) => err.searchStopped === 'search_too_long' && /64 of 30\d\d rows read/.test(err.message));
      const whole = await screen.search({ pattern: 'row', regex, ignoreCase: false }, 10);
      assert.equal(whole.total, 3000);
    }
  });

  test('a pattern that backtracks is stopped on its own thread; parsing goes on meanwhile', async (t) => {
    const { host, fatal } = startHost(t);
    const logs = host.open({ cols: 40, rows: 5, scrollbackRows: 1000 });
    const other = host.open({ cols: 40, rows: 5 });
    logs.write(enc(`${'a'.repeat(32)}b\r\n`), { live: true });
    await logs.flush();
    let answered = false;
    const search = logs.search({ pattern: '(a+)+$', regex: true, ignoreCase: false }, 10).finally(() => (answered = true));
    // While it runs (minutes, unstopped), another screen is written to and read.
    other.write(enc('still parsing'), { live: true });
    assert.match(await plainText(other, 0), /still parsing/);
    assert.equal(answered, false, 'the other screen was read while the search ran');
    await assert.rejects(search, (err: Error & { searchStopped?: string }) => err.searchStopped === 'pattern_too_slow' && /backtracks/.test(err.message));
    // The screen searched is itself written to again, and searched with a pattern that behaves.
    logs.write(enc('after\r\n'), { live: true });
    const ok = await logs.search({ pattern: '^(a)\\1+b$', regex: true, ignoreCase: false }, 10);
    assert.equal(ok.total, 1);
    assert.match(await plainText(logs, 10), /after/);
    assert.equal(fatal.length, 0);
  });

  test(`at most ${MAX_PATTERN_THREADS} patterns run at once; the others wait their turn`, async (t) => {
    const { host } = startHost(t);
    const logs = host.open({ cols: 40, rows: 5, scrollbackRows: 1000 });
    logs.write(enc(`${'a'.repeat(32)}b\r\n`), { live: true });
    const started = performance.now();
    const searches = Array.from({ length: MAX_PATTERN_THREADS + 1 }, () =>
      logs.search({ pattern: '(a+)+$', regex: true, ignoreCase: false }, 10).then(
        () => assert.fail('a backtracking pattern was not stopped'),
        (err: Error & { searchStopped?: string }) => {
          assert.equal(err.searchStopped, 'pattern_too_slow');
          return performance.now() - started;
        },
      ));
    const took = await Promise.all(searches);
    // Each is stopped at the deadline after it starts: the last started only once one of the first ended.
    assert.ok(Math.max(...took) >= 2 * PATTERN_BATCH_DEADLINE_MS, `answered after ${took.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  });

  test('a closed screen answers no more; a dead host says so to every caller and to the server', async (t) => {
    const { host, fatal } = startHost(t);
    const closed = host.open({ cols: 10, rows: 3 });
    closed.dispose();
    await assert.rejects(closed.flush(), /disposed/);
    const screen = host.open({ cols: 10, rows: 3 });
    await screen.flush();
    // An operation the host cannot apply outside a call ends its thread (as an exception while parsing would).
    host.send({ op: 'resize', screen: screen.id, cols: Number.NaN, rows: Number.NaN });
    const pending = screen.flush();
    await assert.rejects(pending);
    await until(() => fatal.length === 1, 'the fatal report');
    await assert.rejects(screen.flush());
  });
});
