import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputLog, randomBaseSeq } from './output-log.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: unknown) => new TextDecoder().decode(b as Uint8Array);

describe('OutputLog', () => {
  test('append returns the stream position after the bytes, counted in bytes from the base', () => {
    const log = new OutputLog({ baseSeq: 1000 });
    assert.equal(log.append(bytes('abc')), 1003);
    assert.equal(log.append(bytes('한')), 1006);
    assert.equal(log.append(new Uint8Array(0)), 1006);
    assert.equal(log.startSeq, 1000);
    assert.equal(log.endSeq, 1006);
  });

  test('since returns exactly the bytes after a seq, across chunk boundaries', () => {
    const log = new OutputLog({ baseSeq: 50 });
    for (const s of ['one ', 'two ', 'three']) log.append(bytes(s));
    assert.equal(text(log.since(50)), 'one two three');
    assert.equal(text(log.since(52)), 'e two three');
    assert.equal(text(log.since(58)), 'three');
    assert.equal(text(log.since(63)), '');
  });

  test('restartAt forgets every byte and numbers the next ones from the new seq, forward or back', () => {
    const log = new OutputLog({ baseSeq: 100 });
    log.append(bytes('hello'));
    log.restartAt(5000);
    assert.equal(log.startSeq, 5000);
    assert.equal(log.endSeq, 5000);
    assert.equal(log.read(103, 10), 'too-old');
    assert.equal(log.append(bytes('ab')), 5002);
    assert.deepEqual(text(log.since(5000)), 'ab', 'the old bytes on the same page are not part of the new stream');
    log.restartAt(0);
    assert.equal(log.append(bytes('xyz')), 3);
    assert.deepEqual(text(log.since(1)), 'yz');
  });

  test('read caps the answer at maxBytes', () => {
    const log = new OutputLog({ baseSeq: 0 });
    log.append(bytes('abc'));
    log.append(bytes('def'));
    assert.equal(text(log.read(1, 4)), 'bcde');
    assert.equal(text(log.read(1, 1)), 'b');
  });

  test('a seq past the end is ahead and a seq before the start is too old', () => {
    const log = new OutputLog({ baseSeq: 10 });
    log.append(bytes('hello'));
    assert.equal(log.since(16), 'ahead');
    log.trimTo(12);
    assert.equal(log.since(11), 'too-old');
    assert.equal(text(log.since(12)), 'llo');
  });

  test('trimming to a seq inside a chunk keeps the rest of that chunk', () => {
    const log = new OutputLog({ baseSeq: 0 });
    log.append(bytes('abcdef'));
    log.trimTo(4);
    assert.equal(log.startSeq, 4);
    assert.equal(log.byteLength, 2);
    assert.equal(text(log.since(4)), 'ef');
  });

  test('trimming past the end clamps to the end; trimming backwards does nothing', () => {
    const log = new OutputLog({ baseSeq: 0 });
    log.append(bytes('abc'));
    log.trimTo(99);
    assert.equal(log.startSeq, 3);
    log.trimTo(1);
    assert.equal(log.startSeq, 3);
    assert.equal(log.byteLength, 0);
  });

  test('the byte cap bounds the log whatever the acks say', () => {
    const log = new OutputLog({ baseSeq: 0, capBytes: 1024 });
    for (let i = 0; i < 1000; i++) log.append(new Uint8Array(100).fill(i % 256));
    assert.equal(log.byteLength, 1024);
    assert.equal(log.endSeq, 100_000);
    assert.equal(log.startSeq, 100_000 - 1024);
    const tail = log.since(log.startSeq) as Uint8Array;
    assert.equal(tail.length, 1024);
    assert.equal(tail[1023], 999 % 256);
    assert.equal(log.since(log.startSeq - 1), 'too-old');
  });

  test('one append larger than the cap keeps only its last cap bytes', () => {
    const log = new OutputLog({ baseSeq: 0, capBytes: 4 });
    log.append(bytes('abcdefgh'));
    assert.equal(text(log.since(4)), 'efgh');
  });

  test('ten thousand small chunks trimmed one by one stay readable', () => {
    const log = new OutputLog({ baseSeq: 7 });
    for (let i = 0; i < 10_000; i++) {
      log.append(bytes(String.fromCharCode(97 + (i % 26))));
      if (i % 3 === 0) log.trimTo(log.endSeq - 5);
    }
    assert.equal(log.byteLength, 5);
    assert.equal(text(log.since(log.startSeq)).length, 5);
    assert.equal(text(log.since(log.endSeq - 1)), String.fromCharCode(97 + (9999 % 26)));
  });

  test('random base seqs differ and leave room below 2^53', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const base = randomBaseSeq();
      assert.ok(Number.isSafeInteger(base) && base >= 0 && base < 2 ** 48);
      seen.add(base);
    }
    assert.ok(seen.size > 95);
  });

  test('a base seq that is not a safe integer below 2^48 is refused', () => {
    for (const baseSeq of [-1, 0.5, 2 ** 48, Number.NaN]) assert.throws(() => new OutputLog({ baseSeq }), RangeError);
  });
});

describe('OutputLog with many small appends', () => {
  test('a million one-byte appends are held in few chunks and read back exactly', () => {
    const log = new OutputLog({ baseSeq: 3 });
    const want = new Uint8Array(1_000_000);
    for (let i = 0; i < want.length; i++) {
      want[i] = (i * 31) & 0xff;
      log.append(want.subarray(i, i + 1));
    }
    assert.equal(log.byteLength, 1_000_000);
    assert.deepEqual(log.since(3), want);
    assert.deepEqual(log.read(3 + 500_000, 10), want.subarray(500_000, 500_010));
  });

  test('small appends after a trim into the tail chunk stay exact', () => {
    const log = new OutputLog({ baseSeq: 0 });
    log.append(bytes('abc'));
    log.trimTo(2);
    log.append(bytes('de'));
    assert.equal(text(log.since(2)), 'cde');
    log.trimTo(5);
    log.append(bytes('f'));
    assert.equal(text(log.since(5)), 'f');
    log.append(new Uint8Array(2000).fill(0x67));
    log.append(bytes('h'));
    assert.equal(text(log.read(5, 2)), 'fg');
    assert.equal(text(log.since(log.endSeq - 2)), 'gh');
  });

  test('a read made before more small appends keeps its bytes', () => {
    const log = new OutputLog({ baseSeq: 0 });
    log.append(bytes('xy'));
    const early = log.since(0) as Uint8Array;
    log.append(bytes('zz'));
    assert.equal(text(early), 'xy');
  });
});

describe('OutputLog pages', () => {
  test("copies what it is given: the caller's array can be reused at once", () => {
    const log = new OutputLog({ baseSeq: 0 });
    const buffer = new Uint8Array(40_000).fill(0x61);
    log.append(buffer);
    buffer.fill(0x62);
    log.append(buffer.subarray(0, 10));
    const all = log.since(0) as Uint8Array;
    assert.equal(all.length, 40_010);
    assert.ok(all.subarray(0, 40_000).every((b) => b === 0x61), 'the first append kept its bytes');
    assert.ok(all.subarray(40_000).every((b) => b === 0x62));
  });

  test('two logs appending and trimming at random, sharing trimmed pages, each read back exactly', () => {
    // A small deterministic generator: the same sequence on every run.
    let state = 12345;
    const random = (n: number): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const logs = [new OutputLog({ baseSeq: 0 }), new OutputLog({ baseSeq: 1000, capBytes: 100_000 })];
    const models = logs.map(() => ({ bytes: [] as number[], start: 0 }));
    for (let step = 0; step < 3000; step++) {
      const which = random(2);
      const log = logs[which]!;
      const model = models[which]!;
      const base = which === 0 ? 0 : 1000;
      if (random(3) > 0) {
        const size = random(5) === 0 ? random(40_000) : random(200);
        const chunk = new Uint8Array(size);
        for (let i = 0; i < size; i++) chunk[i] = (step + i * 7) & 0xff;
        log.append(chunk);
        chunk.fill(0); // the caller reuses its buffer
        for (let i = 0; i < size; i++) model.bytes.push((step + i * 7) & 0xff);
        // the byte cap, as the log applies it
        const over = model.bytes.length - model.start - log.capBytes;
        if (over > 0) model.start += over;
      } else {
        // a viewer that has everything trims to the end: the page appends go into must stay
        const to = random(4) === 0 ? model.bytes.length : model.start + random(model.bytes.length - model.start + 1);
        log.trimTo(base + to);
        model.start = Math.max(model.start, to);
      }
      assert.equal(log.startSeq, base + model.start, `step ${step}: start`);
      assert.equal(log.endSeq, base + model.bytes.length, `step ${step}: end`);
      if (step % 50 === 0 || step > 2950) {
        for (const [l, m, b] of [[logs[0]!, models[0]!, 0], [logs[1]!, models[1]!, 1000]] as const) {
          const got = l.since(b + m.start) as Uint8Array;
          assert.deepEqual([...got], m.bytes.slice(m.start), `step ${step}: a log's bytes`);
        }
      }
    }
  });
});

test('a read across pages is gathered into the scratch given when it has room, else into a new array; a read in one page is a view', () => {
  const log = new OutputLog({ baseSeq: 0 });
  const bytes = Uint8Array.from({ length: 40 * 1024 }, (_, i) => i % 251);
  log.append(bytes);
  const scratch = new Uint8Array(64 * 1024);
  const across = log.read(1000, 30 * 1024, scratch);
  assert.ok(across instanceof Uint8Array);
  assert.equal(across.buffer, scratch.buffer, 'gathered into the scratch');
  assert.deepEqual([...across], [...bytes.subarray(1000, 1000 + 30 * 1024)]);
  const small = new Uint8Array(1024);
  const fresh = log.read(1000, 30 * 1024, small);
  assert.ok(fresh instanceof Uint8Array);
  assert.notEqual(fresh.buffer, small.buffer, 'a scratch too small is left alone');
  assert.deepEqual([...fresh], [...bytes.subarray(1000, 1000 + 30 * 1024)]);
  const inside = log.read(10, 100, scratch);
  assert.ok(inside instanceof Uint8Array);
  assert.notEqual(inside.buffer, scratch.buffer, 'a read inside one page is a view of the page');
  assert.deepEqual([...inside], [...bytes.subarray(10, 110)]);
});
