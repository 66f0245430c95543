import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyReader, LONE_ESCAPE_MS, type Key } from './key-reader.js';

function read(chunks: string[]): Key[] {
  const keys: Key[] = [];
  const reader = new KeyReader((k) => keys.push(k));
  for (const c of chunks) reader.feed(c);
  reader.dispose();
  return keys;
}

test('a bracketed paste split anywhere is one paste, its newlines text and never Enter', () => {
  const whole = 'ab\x1b[200~one\r\ntwo\rthree\x1b[201~\r';
  const expected: Key[] = [{ kind: 'text', text: 'ab' }, { kind: 'paste', text: 'one\ntwo\nthree' }, { kind: 'enter' }];
  assert.deepEqual(read([whole]), expected);
  for (let i = 1; i < whole.length; i++) {
    const keys = read([whole.slice(0, i), whole.slice(i)]);
    const texts = keys.filter((k) => k.kind === 'text').map((k) => (k as { text: string }).text).join('');
    assert.deepEqual([texts, keys.filter((k) => k.kind !== 'text')], ['ab', expected.slice(1)], `split at ${i}`);
  }
});

test('arrows are ignored, Backspace, Ctrl-C and Ctrl-J are keys, UTF-8 text stays whole', () => {
  assert.deepEqual(read(['é\x1b[A\x7f\x03x\ny']), [
    { kind: 'text', text: 'é' },
    { kind: 'ignored', sequence: '\x1b[A' },
    { kind: 'backspace' },
    { kind: 'ctrl-c' },
    { kind: 'text', text: 'x\ny' },
  ]);
});

test('a lone ESC is the Escape key once nothing follows it', async () => {
  const keys: Key[] = [];
  const reader = new KeyReader((k) => keys.push(k));
  reader.feed('\x1b');
  assert.deepEqual(keys, [], 'not yet: it may start a sequence');
  await new Promise((r) => setTimeout(r, LONE_ESCAPE_MS * 3));
  assert.deepEqual(keys, [{ kind: 'escape' }]);
  reader.dispose();
});
