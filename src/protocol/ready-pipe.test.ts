import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { awaitReady, parseReadyLine, recoveringLine } from './ready-pipe.js';

test('ready lines: progress, OK, ERR, and anything else is an error in its own words', () => {
  assert.deepEqual(parseReadyLine(recoveringLine(2, 5)), { kind: 'recovering', done: 2, total: 5 });
  assert.deepEqual(parseReadyLine('OK 1234'), { kind: 'ok', pid: 1234 });
  assert.deepEqual(parseReadyLine('ERR the store is read-only'), { kind: 'err', message: 'the store is read-only' });
  assert.deepEqual(parseReadyLine('OK'), { kind: 'err', message: 'OK' });
});

test('the starter waits through progress lines split anywhere and takes the final line', async () => {
  const pipe = new PassThrough();
  const seen: string[] = [];
  const ready = awaitReady(pipe, { silenceMs: 10_000, onProgress: (done, total) => seen.push(`${done}/${total}`) });
  for (const chunk of ['RECOVER', 'ING 0/2\nRECOVERING 1/', '2\nRECOVERING 2/2\nO', 'K 42\n']) pipe.write(chunk);
  assert.deepEqual(await ready, { kind: 'ok', pid: 42 });
  assert.deepEqual(seen, ['0/2', '1/2', '2/2']);
});

test('silence ends the wait, each progress line restarts it; a pipe closed early says so', async () => {
  const slow = new PassThrough();
  const silent = awaitReady(slow, { silenceMs: 1000 });
  // Progress every 400 ms for 1.6 s: past the second of silence allowed, but never silent that long.
  for (let i = 0; i < 4; i++) {
    slow.write(`${recoveringLine(i, 4)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  slow.write('OK 7\n');
  assert.deepEqual(await silent, { kind: 'ok', pid: 7 });

  const quiet = await awaitReady(new PassThrough(), { silenceMs: 30 });
  assert.equal(quiet.kind === 'err' && quiet.unanswered, true);
  assert.match(quiet.kind === 'err' ? quiet.message : '', /did not report ready within 0.03 s/);

  const closed = new PassThrough();
  const early = awaitReady(closed, { silenceMs: 10_000 });
  closed.end('RECOVERING 0/1\n');
  assert.deepEqual(await early, { kind: 'err', message: 'the server exited before it was ready', unanswered: true });
});
