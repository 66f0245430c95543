// How the MCP search tool bounds its hits: the oldest go first, from the
// session with the most shown, so each matching session keeps its newest;
// a long line is shown around its match.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionSearchHits } from '../../protocol/api/index.js';
import { MAX_HIT_LINE_CHARS, boundHits, lineAroundMatch, matchFinder } from './search-hits.js';

function sessionHits(id: string, lines: string[], total = lines.length): SessionSearchHits {
  return {
    id,
    name: null,
    index: 1,
    status: 'running',
    matches: lines.map((line, i) => ({ row: i * 10, line })),
    total,
    truncated: total > lines.length,
    firstRow: 0,
    endRow: lines.length * 10,
    dropped: 0,
  };
}

const find = matchFinder('hit', { regex: false, ignoreCase: false });

describe('boundHits', () => {
  test('everything fits: every hit, sessions in order, each oldest first; omitted counts what each session left beyond its max', () => {
    const bounded = boundHits([sessionHits('aaaaaaaa', ['hit 1', 'hit 2'], 5), sessionHits('bbbbbbbb', ['hit 3'])], find, 10_000);
    assert.deepEqual(bounded.hits.map((h) => [h.session, h.row, h.line]), [
      ['aaaaaaaa', 0, 'hit 1'],
      ['aaaaaaaa', 10, 'hit 2'],
      ['bbbbbbbb', 0, 'hit 3'],
    ]);
    assert.equal(bounded.omitted, 3);
    assert.deepEqual(bounded.per_session.map((s) => [s.total, s.shown]), [[5, 2], [1, 1]]);
  });

  test('too many: the oldest hits of the session with the most go first, so the other keeps its own', () => {
    const many = Array.from({ length: 50 }, (_, i) => `hit ${i}`);
    const bounded = boundHits([sessionHits('aaaaaaaa', many), sessionHits('bbbbbbbb', ['hit b1', 'hit b2'])], find, 600);
    const a = bounded.hits.filter((h) => h.session === 'aaaaaaaa').map((h) => h.line);
    const b = bounded.hits.filter((h) => h.session === 'bbbbbbbb').map((h) => h.line);
    assert.deepEqual(b, ['hit b1', 'hit b2']);
    assert.ok(a.length > 0 && a.length < 50);
    assert.deepEqual(a, many.slice(50 - a.length), 'the newest of a, oldest first');
    assert.equal(bounded.omitted, 50 - a.length);
  });
});

describe('lineAroundMatch', () => {
  test('a short line is kept whole', () => {
    assert.equal(lineAroundMatch('short hit', 6), 'short hit');
  });

  test('a long line is cut around its match, "…" on each cut side, within the limit', () => {
    const line = `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`;
    const at = matchFinder('needle', { regex: false, ignoreCase: true })(line);
    assert.equal(at, 5000);
    const shown = lineAroundMatch(line, at);
    assert.ok(shown.length <= MAX_HIT_LINE_CHARS);
    assert.ok(shown.startsWith('…a') && shown.endsWith('b…'));
    assert.ok(shown.includes('NEEDLE'));
  });

  test('never cuts a character that takes two UTF-16 units in half', () => {
    for (const pad of ['', 'x']) {
      const line = `${pad}${'😀'.repeat(600)}`;
      const shown = lineAroundMatch(line, 500);
      assert.ok(shown.length <= MAX_HIT_LINE_CHARS);
      assert.doesNotMatch(shown.replace(/😀/g, ''), /[\uD800-\uDFFF]/, `no lone surrogate (pad "${pad}")`);
    }
  });

  test('a match near the end keeps the end of the line, with no "…" after it', () => {
    const line = `${'a'.repeat(1000)}tail-match`;
    const shown = lineAroundMatch(line, matchFinder('tail-\\w+', { regex: true, ignoreCase: false })(line));
    assert.ok(shown.endsWith('tail-match'));
    assert.ok(shown.startsWith('…'));
  });
});
