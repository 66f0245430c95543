import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandMarkScanner } from './command-mark-scanner.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

test('finds end marks (OSC 133;D, 633;D) with or without a status, and start marks (C)', () => {
  assert.deepEqual(new CommandMarkScanner().feed(bytes('out\x1b]133;D;0\x07\x1b]133;A\x07')), { start: false, end: true });
  assert.deepEqual(new CommandMarkScanner().feed(bytes('\x1b]633;D\x1b\\')), { start: false, end: true });
  assert.deepEqual(new CommandMarkScanner().feed(bytes('\x1b]633;E;ls\x07\x1b]133;C\x07out')), { start: true, end: false });
});

test('other marks and plain text are neither', () => {
  const scanner = new CommandMarkScanner();
  assert.deepEqual(scanner.feed(bytes('\x1b]133;A\x07$ \x1b]133;B\x07')), { start: false, end: false });
  assert.deepEqual(scanner.feed(bytes('133;D ]133;D 133;C')), { start: false, end: false });
});

test('a mark split across reads is found at every split point, and only once it is complete', () => {
  const mark = '\x1b]133;D;1\x07';
  // The mark is known at its D: the status after it may come in a later read.
  for (let cut = 1; cut < '\x1b]133;D'.length; cut++) {
    const scanner = new CommandMarkScanner();
    assert.equal(scanner.feed(bytes(`text${mark.slice(0, cut)}`)).end, false, `cut at ${cut}`);
    assert.equal(scanner.feed(bytes(mark.slice(cut))).end, true, `cut at ${cut}`);
  }
});

test('the carried tail is a copy: a reused read buffer does not change it', () => {
  const scanner = new CommandMarkScanner();
  const buffer = bytes('xx\x1b]13');
  assert.equal(scanner.feed(buffer).end, false);
  buffer.fill(0x20);
  assert.equal(scanner.feed(bytes('3;D')).end, true);
});

test('a mark split over three reads, the middle one shorter than the mark, is found', () => {
  const scanner = new CommandMarkScanner();
  assert.equal(scanner.feed(bytes('\x1b]')).end, false);
  assert.equal(scanner.feed(bytes('13')).end, false);
  assert.equal(scanner.feed(bytes('3;D;0\x07')).end, true);
});
