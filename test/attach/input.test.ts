// Input arrives whole: an IME-committed string in one INPUT frame reaches the
// program in one read, and a 10 MB paste through `tend attach` arrives
// complete and in order while another session's output keeps flowing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, HEX_ECHO, RawViewer, newSession, serverFor, serverScreen, waitForSessionText } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };
const IME_TEXT = '한글 입력기 テスト 🙂';

test('a Korean string committed in one INPUT frame reaches the program in one read, whole', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: HEX_ECHO, cols: 200 });
  await waitForSessionText(server, id, /ready/);
  const viewer = await RawViewer.connect(scope, server);
  viewer.subscribe(id);
  await viewer.next('snapshot');
  viewer.send({ type: 'input', channel: 1, data: Buffer.from(IME_TEXT, 'utf8') });
  const hex = Buffer.from(IME_TEXT, 'utf8').toString('hex');
  await waitForSessionText(server, id, new RegExp(`\\[${hex}\\]`));
});

test('typed through tend attach, the same string arrives whole too', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: HEX_ECHO });
  await waitForSessionText(server, id, /ready/);
  const viewer = await AttachedTerminal.start(scope, server, [id], { cols: 200 });
  viewer.type(IME_TEXT);
  await waitForSessionText(server, id, new RegExp(`\\[${Buffer.from(IME_TEXT, 'utf8').toString('hex')}\\]`));
});

// Counts and hashes every byte it reads, then prints the total and the digest.
const COUNTER = [
  process.execPath,
  '-e',
  "const h = require('crypto').createHash('sha256'); let n = 0; const want = Number(process.argv[1]);" +
    "process.stdin.setRawMode(true); process.stdout.write('ready\\n');" +
    "process.stdin.on('data', (b) => { n += b.length; h.update(b); if (n >= want) process.stdout.write('got ' + n + ' ' + h.digest('hex') + '\\n'); });",
];

test('a 10 MB paste through tend attach arrives complete and in order without stalling another session', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  // Printable text with multi-byte characters, no control bytes (the tty would act on them).
  const unit = Buffer.concat([Buffer.from(randomBytes(3 * 1024).toString('base64')), Buffer.from('한글🙂')]);
  const paste = Buffer.concat(Array.from({ length: Math.ceil((10 * 1024 * 1024) / unit.length) }, () => unit));
  const digest = createHash('sha256').update(paste).digest('hex');
  const id = await newSession(server, { argv: [...COUNTER, String(paste.length)] });
  await waitForSessionText(server, id, /ready/);
  const ticker = await newSession(server, { argv: ['sh', '-c', 'i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.02; done'] });
  const watcher = await RawViewer.connect(scope, server);
  watcher.autoAck = true;
  watcher.subscribe(ticker);
  await watcher.next('snapshot');

  const viewer = await AttachedTerminal.start(scope, server, [id]);
  const ticksBefore = watcher.streamBytes;
  viewer.type(paste);
  const done = await waitForSessionText(server, id, /got \d+ [0-9a-f]{64}/, 120_000);
  const ticksDuring = watcher.streamBytes - ticksBefore;
  const m = /got (\d+) ([0-9a-f]{64})/.exec(done.text)!;
  assert.equal(Number(m[1]), paste.length);
  assert.equal(m[2], digest);
  assert.ok(ticksDuring > 0, 'the other session went on printing during the paste');
  await waitFor(async () => /tick/.test((await serverScreen(server, ticker)).text));
});
