// A search's limits: its rows are read in batches given to the matcher
// (which may answer later), and past its time budget it stops, saying how
// far it got, instead of holding its screen's parsing for good.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from './screen.js';
import { SearchStoppedError, textMatcher, type LineMatcher } from './screen-search.js';

async function screenOfLines(count: number): Promise<Screen> {
  const screen = new Screen({ cols: 40, rows: 5, scrollbackRows: 10_000 });
  let text = '';
  for (let i = 0; i < count; i++) text += `line ${i}\r\n`;
  screen.write(text, { live: false });
  await screen.flush();
  return screen;
}

describe('screen search', () => {
  test('a matcher that answers later sees every line once, in batches, in order', async (t) => {
    const screen = await screenOfLines(5000);
    t.after(() => screen.dispose());
    const seen: string[] = [];
    let batches = 0;
    const later: LineMatcher = {
      test: async (lines) => {
        batches++;
        seen.push(...lines);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return lines.map((line) => line.endsWith('7'));
      },
    };
    const result = await screen.search(later, 3);
    assert.equal(seen.length, 5000);
    assert.deepEqual(seen.slice(0, 2), ['line 0', 'line 1']);
    assert.ok(batches > 1, `${batches} batches`);
    assert.equal(result.total, 500);
    assert.deepEqual(result.matches.map((m) => m.line), ['line 4977', 'line 4987', 'line 4997']);
  });

  test('past its budget a search stops and says how many rows it read', async (t) => {
    const screen = await screenOfLines(3000);
    t.after(() => screen.dispose());
    await assert.rejects(screen.search(textMatcher('line', false), 10, { budgetMs: 0 }), (err: unknown) =>
      err instanceof SearchStoppedError && err.reason === 'search_too_long' && /64 of 300\d rows read/.test(err.message));
    // The screen parses on afterwards.
    screen.write('after\r\n', { live: false });
    await screen.flush();
    assert.equal((await screen.search(textMatcher('AFTER', true), 10)).total, 1);
  });
});
