// The native attach's overlays (viewer/overlays.c: the hint on entry, the
// read-only marker, the incomplete-screen notice) draw, give way, time out
// and ask for repaints exactly as the TypeScript viewer's do
// (src/cli/attach/overlay.ts, screen-overlays.ts): the attach tests read
// their texts off the screen, and the outer scrollback keeps every row only
// if they blank and repaint at the same moments. Its reconnect delays
// (viewer/backoff.c) are backoff.ts's. Each test asks the C side
// through its oracle (viewer/test/oracle_overlays.c, one request a line) and
// holds every answer against the TypeScript for the same inputs; the
// TypeScript's timers run on node:test's mock clock.
import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { drawOverlay, eraseOverlay, fitColumns } from '../../src/cli/attach/overlay.js';
import { ScreenOverlays } from '../../src/cli/attach/screen-overlays.js';
import { Backoff } from '../../src/cli/attach/backoff.js';
import { seededRandom } from '../support/random-stream.js';
import { assertSameAnswers, hexOrDash as hex } from './oracle.js';


/** Text for a row: ASCII, controls, Latin, combining marks, CJK, Hangul, fullwidth, emoji, zero-width. */
const ALPHABET = [...'abc xyz·…', '\x01', '\x1b', '\x7f', '\u0085', 'é', 'e\u0301', '日', '本', '한', 'Ａ', '🙂', '\u200b', '\ufe0f', '𠀀'];
function randomText(random: () => number, maxChars: number): string {
  let text = '';
  const n = Math.floor(random() * maxChars);
  for (let i = 0; i < n; i++) text += ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  return text;
}

/** What the TypeScript overlays write and ask for, driven by the oracle's script ops. */
function scriptInTypeScript(options: { readOnly: boolean; prefix: number; name: string | null; cols: number; rows: number }, ops: string[]): string {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let written = '';
    let repaints = 0;
    const overlays = new ScreenOverlays(
      {
        size: () => ({ cols: options.cols, rows: options.rows }),
        canDraw: () => true,
        write: (text) => (written += text),
        repaint: () => repaints++,
        switchTo: () => null,
        typed: () => {},
        session: () => ({ id: 'b0c15545', name: options.name }),
      },
      { readOnly: options.readOnly, prefix: options.prefix },
    );
    return ops
      .map((op) => {
        written = '';
        repaints = 0;
        switch (op[0]) {
          case 'p':
            overlays.painted();
            overlays.afterPaint();
            break;
          case 'k':
            overlays.keyTyped();
            break;
          case 'd':
            // What attach-session.ts does with DATA while rows are covered.
            if (overlays.coveredRows > 0 && !overlays.givesWayToOutput) return 'held';
            if (overlays.coveredRows === 0) return 'pass';
            written += overlays.giveWay();
            break;
          case 'g':
            written += overlays.statusGiveWay();
            break;
          case 'n':
            overlays.showNotice();
            break;
          case 'm':
            overlays.showReadOnlyMarker();
            break;
          case 't':
            mock.timers.tick(Number(op.slice(1)));
            break;
          case 'l':
            written += overlays.leaving();
            break;
          case 's':
            return `${overlays.coveredRows},${overlays.repaintOwed ? 1 : 0},${overlays.givesWayToOutput ? 1 : 0}`;
        }
        return hex(written) + (repaints > 0 ? '+R' : '');
      })
      .join(' ');
  } finally {
    mock.timers.reset();
  }
}

describe('native viewer: the overlays, against overlay.ts and screen-overlays.ts', () => {
  test('a row drawn over the screen: every width, every height, text wider than the row', () => {
    const random = seededRandom(29);
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 600; i++) {
      const text = randomText(random, 140);
      const cols = 1 + Math.floor(random() * 120);
      const rows = 1 + Math.floor(random() * 50);
      cases.push({ request: `draw ${hex(text)} ${cols} ${rows}`, want: hex(drawOverlay([{ text }], { cols, rows })) });
      cases.push({ request: `fit ${hex(text)} ${cols}`, want: hex(fitColumns(text, cols)) });
      const count = Math.floor(random() * (rows + 3));
      cases.push({ request: `erase ${count} ${cols} ${rows}`, want: hex(eraseOverlay(count, { cols, rows })) });
    }
    for (const cols of [1, 2, 80, 1000]) cases.push({ request: `draw ${hex('')} ${cols} 24`, want: hex(drawOverlay([{ text: '' }], { cols, rows: 24 })) });
    assertSameAnswers('oracle-overlays', cases);
  });

  test('the hint, the marker and the notice: shown, given way, timed out, ended by keys and repainted alike', () => {
    const scripts: Array<{ readOnly: boolean; prefix: number; name: string | null; cols: number; rows: number; ops: string[] }> = [
      // The hint on entry, ended by output (it gives way), by a key, by its timeout; not shown twice.
      { readOnly: false, prefix: 0x1c, name: 's', cols: 80, rows: 24, ops: ['p', 's', 'd', 's', 'd', 'p', 's'] },
      { readOnly: false, prefix: 0x01, name: null, cols: 100, rows: 30, ops: ['p', 'k', 's', 'k', 'p', 's'] },
      { readOnly: false, prefix: 0x1c, name: 'long-name-日本', cols: 40, rows: 10, ops: ['p', 't3999', 's', 't1', 's', 'p'] },
      // Read-only: the hint says so; the marker stays across a repaint, its timeout restarts with each key.
      { readOnly: true, prefix: 0x1d, name: 'watched', cols: 80, rows: 24, ops: ['p', 'k', 'p', 'm', 's', 'm', 't2000', 'm', 't2999', 's', 'p', 's', 't1', 's'] },
      { readOnly: true, prefix: 0x1c, name: 'w', cols: 80, rows: 24, ops: ['p', 'm', 'd', 's', 'p', 'm', 'k', 's', 'l'] },
      // The notice holds output back until a key or its timeout, then asks for the repaint.
      { readOnly: false, prefix: 0x1c, name: 'gap', cols: 80, rows: 24, ops: ['p', 'd', 'n', 'd', 's', 'k', 's', 'p', 'n', 't4000', 's', 'p', 's'] },
      // Leaving with rows drawn over blanks them; with none, writes nothing.
      { readOnly: false, prefix: 0x1c, name: 'end', cols: 80, rows: 24, ops: ['p', 'l'] },
      { readOnly: false, prefix: 0x1c, name: 'end', cols: 80, rows: 24, ops: ['p', 'd', 'l', 'n', 'l'] },
      // The status line gives way to output: its row blanked, a repaint owed until the next paint, over the hint too.
      { readOnly: false, prefix: 0x1c, name: 'away', cols: 80, rows: 24, ops: ['p', 'g', 's', 'd', 's', 'p', 's', 'g', 'l'] },
      { readOnly: true, prefix: 0x1c, name: 'away', cols: 1, rows: 1, ops: ['p', 'm', 'g', 's', 'd', 's', 'p', 's'] },
      // A notice before the first paint, and a tiny terminal.
      { readOnly: false, prefix: 0x1c, name: 'tiny', cols: 1, rows: 1, ops: ['n', 's', 'p', 's', 'd', 'k', 'p', 't4000'] },
    ];
    // And seeded random scripts over every op.
    const random = seededRandom(2029);
    const OPS = ['p', 'k', 'd', 'g', 'n', 'm', 't1', 't49', 't1000', 't2999', 't3000', 't4000', 'l', 's'];
    for (let i = 0; i < 300; i++) {
      const ops = Array.from({ length: 1 + Math.floor(random() * 20) }, () => OPS[Math.floor(random() * OPS.length)]!);
      scripts.push({ readOnly: random() < 0.4, prefix: Math.floor(random() * 32), name: random() < 0.2 ? null : randomText(random, 12).replace(/[\x00-\x20\x7f]/g, 'x') || 'n', cols: 1 + Math.floor(random() * 200), rows: 1 + Math.floor(random() * 60), ops });
    }
    assertSameAnswers(
      'oracle-overlays',
      scripts.map((s) => ({
        request: `script ${s.readOnly ? 1 : 0} ${s.prefix} ${hex(s.name === null ? 'b0c15545' : `:${s.name}`)} ${s.cols} ${s.rows} ${s.ops.join(' ')}`,
        want: scriptInTypeScript(s, s.ops),
      })),
    );
  });

  test('the reconnect delays: doubling from 100 ms to 2 s, given up 60 s after the first failure, reset by a success', () => {
    const random = seededRandom(60);
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 300; i++) {
      let now = Math.floor(random() * 1e9);
      const ops: string[] = [];
      const answers: string[] = [];
      const backoff = new Backoff({ now: () => now });
      for (let n = 0; n < 1 + Math.floor(random() * 60); n++) {
        if (random() < 0.1) {
          backoff.reset();
          ops.push('r');
          answers.push('r');
          continue;
        }
        now += Math.floor(random() * (random() < 0.2 ? 20_000 : 2_500));
        const delay = backoff.next();
        ops.push(`n${now}`);
        answers.push(delay === null ? 'give-up' : String(delay));
      }
      cases.push({ request: `backoff ${ops.join(' ')}`, want: answers.join(' ') });
    }
    assertSameAnswers('oracle-overlays', cases);
  });
});
