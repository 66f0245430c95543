import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionPicker, type SessionChoice } from './session-picker.js';

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'utf8'));
const SESSIONS: SessionChoice[] = [
  { id: 'a1', name: 'one', status: 'running', index: 1, argv: ['/usr/bin/vim', 'notes.txt'], cwd: '/w' },
  { id: 'b2', name: null, status: 'running', index: 2, title: 'htop' },
  { id: 'c3', name: 'old', status: 'cold', index: 3 },
];

describe('SessionPicker', () => {
  test('starts on the session shown and marks it', () => {
    const lines = new SessionPicker(SESSIONS, 'b2', undefined).lines(24);
    assert.match(lines[0]!.text, /^tend: sessions/);
    assert.deepEqual(lines.slice(1).map((l) => [l.text, l.highlight]), [
      ['  1   :one (a1)  vim notes.txt  /w', false],
      ['  2 * b2  htop', true],
      ['  3   :old (c3)  [cold]', false],
    ]);
  });

  test("an agent's kind and state stand beside its session", () => {
    const agent = { kind: 'claude', state: 'needs-permission', since: 0, agentSessionId: null, cwd: null, hooksSeen: true, asking: 'Bash', backgroundTasks: 0, lastTurn: null, sleepAfterMs: null, launchedByTend: true } as const;
    const lines = new SessionPicker([{ id: 'd4', name: 'ai', status: 'running', index: 1, argv: ['bash'], agent }], 'x', undefined).lines(24);
    assert.equal(lines[1]!.text, '  1   :ai (d4)  claude needs-permission  bash');
  });

  test('arrows (CSI and SS3), j/k and Ctrl-N/P move; Enter switches to the selection', () => {
    const p = new SessionPicker(SESSIONS, 'a1', undefined);
    assert.deepEqual(p.key(bytes('\x1b[B')), { kind: 'redraw' });
    assert.deepEqual(p.key(bytes('k\x1bOBj')), { kind: 'redraw' });
    assert.deepEqual(p.key(bytes('\x10')), { kind: 'redraw' });
    assert.deepEqual(p.key(bytes('\r')), { kind: 'switch', session: SESSIONS[1] });
  });

  test('a digit switches to the session of that index; the one shown just returns', () => {
    assert.deepEqual(new SessionPicker(SESSIONS, 'a1', undefined).key(bytes('2')), { kind: 'switch', session: SESSIONS[1] });
    assert.deepEqual(new SessionPicker(SESSIONS, 'a1', undefined).key(bytes('1')), { kind: 'cancel' });
  });

  test('a cold session and this terminal\'s own are refused with a reason on the last row', () => {
    const p = new SessionPicker(SESSIONS, 'a1', 'b2');
    assert.deepEqual(p.key(bytes('3')), { kind: 'redraw' });
    assert.match(p.lines(24).at(-1)!.text, /:old is cold .*tend revive/);
    assert.deepEqual(p.key(bytes('2')), { kind: 'redraw' });
    assert.match(p.lines(24).at(-1)!.text, /b2 is this terminal's own session/);
  });

  test('Esc alone, q and Ctrl-C return; an arrow is not Esc', () => {
    for (const key of ['\x1b', 'q', '\x03']) assert.deepEqual(new SessionPicker(SESSIONS, 'a1', undefined).key(bytes(key)), { kind: 'cancel' }, JSON.stringify(key));
    assert.deepEqual(new SessionPicker(SESSIONS, 'a1', undefined).key(bytes('\x1b[A')), { kind: 'none' });
  });

  test('a list taller than the terminal shows the rows around the selection', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, name: null, status: 'running' as const, index: i + 1 }));
    const p = new SessionPicker(many, 's40', undefined);
    const lines = p.lines(10);
    assert.equal(lines.length, 10);
    assert.ok(lines.some((l) => l.highlight && /s40/.test(l.text)));
  });
});
