import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decodeCheckpoint, encodeCheckpoint, FORMAT_VERSION, CheckpointFormatError, type Checkpoint, type CheckpointInput } from './format.js';
import { SLICE_CHARS } from './format.js';

const TEST_TIMEOUT_MS = 20_000;

function checkpoint(screen: string, extra: Partial<Checkpoint> = {}): Checkpoint {
  return {
    sessionId: 'a1b2c3',
    generation: '0123456789abcdef',
    offset: 2 ** 40 + 17,
    cols: 132,
    rows: 43,
    createdAt: 1_700_000_000_123,
    meta: { cwd: '/srv/app', title: 'vim — 한글', modes: { alternateScreen: true, mouse: 'sgr' } },
    screen,
    ...extra,
  };
}

async function encoded(cp: CheckpointInput): Promise<Buffer> {
  return Buffer.concat(await encodeCheckpoint(cp));
}

async function rejects(bytes: Buffer, reason: 'corrupt' | 'unsupported', message: RegExp, id = 'a1b2c3'): Promise<void> {
  await assert.rejects(decodeCheckpoint(bytes, id), (err: unknown) => {
    assert.ok(err instanceof CheckpointFormatError);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  });
}

describe('checkpoint format', { timeout: TEST_TIMEOUT_MS }, () => {
  test('round-trips escapes, wide characters and an emoji pair that straddles a slice boundary', async () => {
    // The emoji's two UTF-16 halves sit either side of the first slice end.
    const pad = 'x'.repeat(SLICE_CHARS - 1);
    const screen = `\x1b[1;38;2;255;0;0m빨강\x1b[0m\r\n${pad}😀\x1b[44m   \x1b[0m 中文 é\u0301 \x1b[?1049h`.repeat(3);
    const cp = checkpoint(screen);
    const back = await decodeCheckpoint(await encoded(cp), cp.sessionId);
    assert.deepEqual(back, cp);
  });

  test('encodes a screen given as parts like the joined string, even with an emoji split between parts', async () => {
    const joined = `row one \x1b[32m✔\x1b[0m 😀 tail ${'w'.repeat(SLICE_CHARS + 10)} 中文\r\n`;
    const cut = joined.indexOf('😀') + 1; // between the emoji's two UTF-16 halves
    const parts = [joined.slice(0, cut), joined.slice(cut, cut + 5), ...joined.slice(cut + 5).match(/[\s\S]{1,1000}/g)!];
    const asParts = await encoded({ ...checkpoint(''), screen: parts });
    const asString = await encoded(checkpoint(joined));
    assert.ok(asParts.equals(asString), 'the same bytes either way');
    assert.equal((await decodeCheckpoint(asParts, 'a1b2c3')).screen, joined);
  });

  test('round-trips an empty screen', async () => {
    const cp = checkpoint('');
    assert.deepEqual(await decodeCheckpoint(await encoded(cp), cp.sessionId), cp);
  });

  test('writes the header it documents: magic, version, lengths and the SHA-256 of the body', async () => {
    const bytes = await encoded(checkpoint('\x1b[31mred\x1b[0m'));
    assert.equal(bytes.subarray(0, 8).toString('ascii'), 'TENDCKPT');
    assert.equal(bytes.readUInt16LE(8), FORMAT_VERSION);
    const headerLength = bytes.readUInt16LE(10);
    assert.equal(headerLength, 56);
    assert.equal(bytes.readBigUInt64LE(16), BigInt(bytes.length - headerLength));
    const digest = createHash('sha256').update(bytes.subarray(headerLength)).digest();
    assert.ok(digest.equals(bytes.subarray(24, 56)));
    // The screen is stored raw after the JSON, not escaped inside it.
    assert.ok(bytes.includes(Buffer.from('\x1b[31mred\x1b[0m')));
  });

  test('calls a file shorter than its header corrupt', async () => {
    await rejects((await encoded(checkpoint('abc'))).subarray(0, 40), 'corrupt', /shorter than its 56-byte header/);
  });

  test('calls a truncated body corrupt, with both lengths', async () => {
    const bytes = await encoded(checkpoint('y'.repeat(10_000)));
    await rejects(bytes.subarray(0, bytes.length - 1), 'corrupt', /truncated/);
  });

  test('calls a single flipped bit in the screen a checksum mismatch', async () => {
    const bytes = await encoded(checkpoint('z'.repeat(10_000)));
    bytes[bytes.length - 5]! ^= 0x01;
    await rejects(bytes, 'corrupt', /checksum does not match/);
  });

  test('calls a wrong magic corrupt', async () => {
    const bytes = await encoded(checkpoint('abc'));
    bytes.write('NOTACKPT', 0, 'ascii');
    await rejects(bytes, 'corrupt', /does not start with TENDCKPT/);
  });

  test('calls a newer format version unsupported rather than corrupt', async () => {
    const bytes = await encoded(checkpoint('abc'));
    bytes.writeUInt16LE(FORMAT_VERSION + 1, 8);
    await rejects(bytes, 'unsupported', new RegExp(`format version ${FORMAT_VERSION + 1}`));
  });

  test("refuses another session's checkpoint", async () => {
    await rejects(await encoded(checkpoint('abc')), 'corrupt', /belongs to session a1b2c3, not zz9/, 'zz9');
  });

  test('refuses metadata that checksums but has the wrong shape', async () => {
    const bytes = await encoded(checkpoint('abc', { offset: -4 }));
    await rejects(bytes, 'corrupt', /offset is not a whole number/);
  });
});
