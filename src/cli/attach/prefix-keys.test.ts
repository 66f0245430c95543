import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PREFIX_KEYS, PrefixKeyFilter, describePrefixKeys } from './prefix-keys.js';

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'binary'));
const text = (b: Uint8Array) => Buffer.from(b).toString('binary');
const CTRL_BACKSLASH = 0x1c;

describe('PrefixKeyFilter', () => {
  test('passes a read without the prefix through as the same bytes', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    const chunk = bytes('hello \xed\x95\x9c');
    const out = f.feed(chunk);
    assert.equal(out.command, null);
    assert.equal(out.forward, chunk);
  });

  test('detaches on the prefix then d, forwarding what came before it and handing back what came after', () => {
    const out = new PrefixKeyFilter(CTRL_BACKSLASH).feed(bytes('ls\x1cdrest'));
    assert.equal(out.command, 'detach');
    assert.equal(text(out.forward), 'ls');
    assert.equal(text(out.rest), 'rest');
  });

  test('runs a command when the prefix and its key arrive in separate reads', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    const first = f.feed(bytes('x\x1c'));
    assert.equal(text(first.forward), 'x');
    assert.equal(f.isPending, true);
    assert.equal(f.feed(bytes('?')).command, 'keys');
    assert.equal(f.feed(bytes('\x1cs')).command, 'sessions');
  });

  test('swallows an unknown key after the prefix: the session gets neither', () => {
    const out = new PrefixKeyFilter(CTRL_BACKSLASH).feed(bytes('a\x1cxb'));
    assert.equal(out.command, null);
    assert.equal(text(out.forward), 'ab');
  });

  test('swallows an arrow, an F-key, Alt-x and a UTF-8 character after the prefix whole', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    assert.equal(text(f.feed(bytes('\x1c\x1b[A1')).forward), '1');
    assert.equal(text(f.feed(bytes('\x1c\x1b[15~2')).forward), '2');
    assert.equal(text(f.feed(bytes('\x1c\x1bOP3')).forward), '3');
    assert.equal(text(f.feed(bytes('\x1c\x1bx4')).forward), '4');
    assert.equal(text(f.feed(bytes('\x1c\xed\x95\x9c5')).forward), '5');
    // A mouse report in the default encoding: CSI M and three raw bytes.
    assert.equal(text(f.feed(bytes('\x1c\x1b[M #!6')).forward), '6');
    assert.equal(f.isPending, false);
  });

  test('swallows a key split across reads', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    assert.equal(text(f.feed(bytes('\x1c\x1b[')).forward), '');
    assert.equal(text(f.feed(bytes('1;5')).forward), '');
    assert.equal(text(f.feed(bytes('Cz')).forward), 'z');
  });

  test('the Esc key alone after the prefix is swallowed, and the next read is typing', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    assert.equal(text(f.feed(bytes('\x1c\x1b')).forward), '');
    assert.equal(text(f.feed(bytes('[A')).forward), '[A');
  });

  test('sends one prefix for the prefix pressed twice, then goes on', () => {
    const f = new PrefixKeyFilter(CTRL_BACKSLASH);
    const out = f.feed(bytes('\x1c\x1cd'));
    assert.equal(text(out.forward), '\x1cd');
    assert.equal(out.command, null);
    assert.equal(f.isPending, false);
  });

  test('uses a configured prefix and leaves the default one alone', () => {
    const f = new PrefixKeyFilter(0x01);
    assert.equal(text(f.feed(bytes('\x1cd')).forward), '\x1cd');
    assert.equal(f.feed(bytes('\x01d')).command, 'detach');
  });
});

describe('describePrefixKeys', () => {
  test('lists every key of the table and the prefix twice, named with the prefix in use', () => {
    const lines = describePrefixKeys(0x01);
    for (const key of PREFIX_KEYS) assert.ok(lines.some((l) => l.startsWith(`Ctrl-A ${String.fromCharCode(key.byte)} `) && l.includes(key.does)), key.does);
    assert.ok(lines.some((l) => l.startsWith('Ctrl-A Ctrl-A ')));
    assert.ok(lines.every((l) => l.length <= 78), 'every line fits an 80-column terminal');
  });
});
