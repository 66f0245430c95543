import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ParseScheduler } from './parse-scheduler.js';
import { Screen } from './screen.js';

function floodText(lines: number, tag: string): string {
  let text = '';
  for (let i = 0; i < lines; i++) text += `\x1b[3${i % 8}m${tag} line ${i} ${'x'.repeat(i % 60)}\x1b[0m\r\n`;
  return text;
}

describe('ParseScheduler', { timeout: 60_000 }, () => {
  test('a small write to a quiet screen is parsed before any of five flooding screens has caught up', async () => {
    const scheduler = new ParseScheduler();
    const floods = Array.from({ length: 5 }, () => new Screen({ cols: 80, rows: 24, scheduler }));
    const quiet = new Screen({ cols: 80, rows: 24, scheduler });
    try {
      const text = floodText(20_000, 'flood');
      for (const screen of floods) screen.write(text, { live: false });
      const backlogsWhenEchoParsed = await new Promise<number[]>((resolve) => {
        // Written after the floods: under xterm's own scheduling it would wait for all of them.
        setImmediate(() => quiet.write('k', { live: false }, () => resolve(floods.map((s) => s.backlogBytes))));
      });
      assert.ok(backlogsWhenEchoParsed.every((b) => b > 0), `a flood finished first: ${backlogsWhenEchoParsed.join(', ')}`);
      assert.equal(quiet.text(), 'k');
      await Promise.all(floods.map((s) => s.flush()));
      assert.ok(floods.every((s) => s.text().includes('flood line 19999')));
    } finally {
      for (const screen of [...floods, quiet]) screen.dispose();
    }
  });

  test('two flooding screens share parse time: when one has caught up the other is well along', async () => {
    const scheduler = new ParseScheduler();
    const a = new Screen({ cols: 80, rows: 24, scheduler });
    const b = new Screen({ cols: 80, rows: 24, scheduler });
    try {
      const text = floodText(30_000, 'same');
      a.write(text, { live: false });
      b.write(text, { live: false });
      const bLeft = await new Promise<number>((resolve) => a.write('', { live: false }, () => resolve(b.backlogBytes)));
      assert.ok(bLeft < text.length * 0.75, `b parsed only ${text.length - bLeft} of ${text.length} bytes while a parsed all`);
      await b.flush();
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('bytes are parsed in order across pieces, resizes and flushes, and a disposed screen settles its flushes', async () => {
    const scheduler = new ParseScheduler({ sliceMs: 0 });
    const screen = new Screen({ cols: 20, rows: 5, scheduler });
    const big = 'y'.repeat(100_000);
    screen.write(big, { live: false });
    screen.resize(40, 5);
    screen.write('\x1b[2J\x1b[Habc', { live: false });
    assert.equal(screen.cols, 40, 'the size asked for shows at once');
    await screen.flush();
    assert.equal(screen.terminal.cols, 40);
    assert.equal(screen.text(), 'abc');
    screen.write(big, { live: false });
    const flushed = screen.flush();
    screen.dispose();
    await flushed;
  });
});
