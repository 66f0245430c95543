import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SizePolicy, parseWindowSizePolicy, type ViewerJoin, type WindowSizePolicy } from './size-policy.js';

const terminal = (cols: number, rows: number, readOnly = false): ViewerJoin => ({ cols, rows, readOnly, terminal: true });
const browser = (cols: number, rows: number): ViewerJoin => ({ cols, rows, readOnly: false, terminal: false });

function policy(name: WindowSizePolicy = 'latest') {
  return new SizePolicy<string>(name);
}

describe('SizePolicy latest', () => {
  test('a terminal that attaches alone gives the PTY its size', () => {
    const p = policy();
    p.join('a', terminal(80, 24));
    assert.deepEqual(p.desired(), { cols: 80, rows: 24 });
  });

  test('a second terminal opening does not take the size from the first', () => {
    const p = policy();
    p.join('a', terminal(100, 30));
    p.join('b', terminal(80, 24));
    assert.deepEqual(p.desired(), { cols: 100, rows: 30 });
  });

  test('a browser opening never takes the size, alone or not', () => {
    const p = policy();
    p.join('w', browser(157, 42));
    assert.equal(p.desired(), null, 'alone: the PTY keeps its size');
    p.join('a', terminal(120, 35));
    p.resize('w', { cols: 150, rows: 40 }); // the page's layout moved: not the person's choice
    assert.deepEqual(p.desired(), { cols: 120, rows: 35 });
  });

  test('the viewer that most recently typed sets the size, a browser included', () => {
    const p = policy();
    p.join('a', terminal(80, 24));
    p.join('b', terminal(120, 40));
    p.join('w', browser(157, 42));
    p.input('b');
    assert.deepEqual(p.desired(), { cols: 120, rows: 40 });
    p.input('w');
    assert.deepEqual(p.desired(), { cols: 157, rows: 42 });
    p.resize('w', { cols: 140, rows: 40 }); // the latest viewer's pane changed: it follows
    assert.deepEqual(p.desired(), { cols: 140, rows: 40 });
    p.input('a');
    assert.deepEqual(p.desired(), { cols: 80, rows: 24 });
  });

  test("a terminal's resize makes it the latest", () => {
    const p = policy();
    p.join('a', terminal(80, 24));
    p.join('b', terminal(120, 40));
    p.resize('b', { cols: 100, rows: 30 });
    assert.deepEqual(p.desired(), { cols: 100, rows: 30 });
  });

  test('read-only viewers never change the size', () => {
    const p = policy();
    p.join('r', terminal(200, 60, true));
    assert.equal(p.desired(), null);
    p.join('w', terminal(80, 24));
    p.input('r');
    p.resize('r', { cols: 10, rows: 5 });
    assert.deepEqual(p.desired(), { cols: 80, rows: 24 });
    assert.deepEqual(p.viewerSize('r'), { cols: 10, rows: 5 }, 'its view still follows its terminal');
    p.leave('w');
    assert.equal(p.desired(), null);
  });

  test('when the latest viewer leaves, the next most recent one applies; a terminal left alone takes the size', () => {
    const p = policy();
    p.join('a', terminal(80, 24));
    p.join('b', terminal(100, 30));
    p.join('c', terminal(120, 40));
    p.input('c');
    p.leave('c');
    assert.deepEqual(p.desired(), { cols: 80, rows: 24 }, 'a opened alone, b never did anything');
    p.leave('a');
    assert.deepEqual(p.desired(), { cols: 100, rows: 30 }, 'b is the one terminal left');
  });

  test('a viewer subscribing again to be repainted keeps its place: a later opener does not get the size', () => {
    const p = policy();
    p.join('a', terminal(100, 30));
    // a draws over its screen, then subscribes again on another channel (KEEPS_HISTORY) and leaves the old one.
    p.join('a2', { ...terminal(100, 30), rejoin: true }, 'a');
    p.leave('a');
    p.join('b', terminal(80, 24));
    assert.deepEqual(p.desired(), { cols: 100, rows: 30 });
    p.input('b');
    assert.deepEqual(p.desired(), { cols: 80, rows: 24 });
  });

  test('with no viewer left the PTY keeps its size', () => {
    const p = policy();
    p.join('a', terminal(80, 24));
    p.leave('a');
    assert.equal(p.desired(), null);
  });
});

describe('SizePolicy smallest, largest, manual', () => {
  test('smallest takes the smallest width and height over writable viewers, browsers included', () => {
    const p = policy('smallest');
    p.join('a', terminal(100, 30));
    p.join('w', browser(157, 20));
    p.join('r', terminal(40, 10, true));
    assert.deepEqual(p.desired(), { cols: 100, rows: 20 });
    p.leave('w');
    assert.deepEqual(p.desired(), { cols: 100, rows: 30 });
  });

  test('largest takes the largest width and height', () => {
    const p = policy('largest');
    p.join('a', terminal(100, 30));
    p.join('b', terminal(80, 40));
    assert.deepEqual(p.desired(), { cols: 100, rows: 40 });
    p.resize('a', { cols: 60, rows: 20 });
    assert.deepEqual(p.desired(), { cols: 80, rows: 40 });
  });

  test('manual: viewers never change the size', () => {
    const p = policy('manual');
    p.join('a', terminal(100, 30));
    p.input('a');
    p.resize('a', { cols: 60, rows: 20 });
    assert.equal(p.desired(), null);
  });

  test('the setting is read by name, and a wrong one says what is allowed', () => {
    assert.equal(parseWindowSizePolicy(undefined), 'latest');
    assert.equal(parseWindowSizePolicy('Smallest'), 'smallest');
    assert.throws(() => parseWindowSizePolicy('biggest'), /TEND_WINDOW_SIZE must be one of latest, smallest, largest, manual/);
  });
});
