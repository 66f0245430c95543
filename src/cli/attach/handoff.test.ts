import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HandoffError, parseHandoff } from './handoff.js';

/** A hand-off as viewer/handoff.c writes it. */
function state(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    session: { id: 'a1b2c3d4', name: 'build "x"' },
    readOnly: false,
    detachPrefix: 0x1c,
    writer: '00112233445566778899aabbccddeeff',
    painted: true,
    written: { boot: 'g1-abc', seq: 123456 },
    keepsHistory: true,
    viewShown: false,
    altScreen: { active: true, originMode: false },
    // "ab" was taken, and "c" of the piece "cde": it goes again whole.
    untaken: { next: 5, taken: 3, pieces: [{ at: 2, hex: '636465' }] },
    command: 'keys',
    covered: true,
    typed: '78',
    stty: '4500:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0',
    ...overrides,
  };
}

describe('the native viewer\'s hand-off', () => {
  test('every field is read as written', () => {
    const h = parseHandoff(JSON.stringify(state()));
    assert.deepEqual(h.session, { id: 'a1b2c3d4', name: 'build "x"' });
    assert.equal(h.detachPrefix, 0x1c);
    assert.equal(Buffer.from(h.writer).toString('hex'), '00112233445566778899aabbccddeeff');
    assert.deepEqual(h.written, { boot: 'g1-abc', seq: 123456 });
    assert.deepEqual([h.painted, h.keepsHistory, h.viewShown, h.covered, h.readOnly], [true, true, false, true, false]);
    assert.deepEqual(h.altScreen, { active: true, originMode: false });
    assert.equal(h.command, 'keys');
    assert.deepEqual([...h.typed], [0x78]);
    assert.equal(h.untaken.nextAt, 5);
    assert.equal(h.untaken.taken, 3);
    assert.deepEqual(h.untaken.unsent().map((p) => [p.at, Buffer.from(p.data).toString()]), [[2, 'cde']]);
    const none = parseHandoff(JSON.stringify(state({ written: null, command: null, stty: null, session: { id: 'x', name: null } })));
    assert.deepEqual([none.written, none.command, none.stty, none.session.name], [null, null, null, null]);
  });

  test('anything else is refused with what is wrong', () => {
    const refused: Array<[string, RegExp]> = [
      ['not json', /not JSON/],
      [JSON.stringify(state({ v: 2 })), /version 2/],
      [JSON.stringify(state({ session: 'x' })), /"session" must be an object/],
      [JSON.stringify(state({ session: { id: '', name: null } })), /"session.id"/],
      [JSON.stringify(state({ writer: 'abcd' })), /"writer" must be 16 bytes/],
      [JSON.stringify(state({ writer: 'zz112233445566778899aabbccddeeff' })), /"writer" must be bytes in lower-case hex/],
      [JSON.stringify(state({ detachPrefix: 0x61 })), /"detachPrefix"/],
      [JSON.stringify(state({ painted: 1 })), /"painted" must be true or false/],
      [JSON.stringify(state({ written: { boot: 'b', seq: -1 } })), /"written.seq"/],
      [JSON.stringify(state({ written: { boot: 'b', seq: 2 ** 53 } })), /"written.seq"/],
      [JSON.stringify(state({ command: 'detach' })), /"command"/],
      [JSON.stringify(state({ stty: 'sane; rm -rf x' })), /"stty"/],
      [JSON.stringify(state({ untaken: { next: 5, taken: 3, pieces: [{ at: 2, hex: '6364' }] } })), /"untaken"/],
      [JSON.stringify(state({ untaken: { next: 5, taken: 3, pieces: [{ at: 2, hex: '63646' }] } })), /"untaken.pieces\[0\].hex"/],
    ];
    for (const [text, says] of refused) {
      assert.throws(() => parseHandoff(text), (err: unknown) => err instanceof HandoffError && says.test(err.message), text);
    }
  });
});
