import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, startHolder } from './holder-fixture.js';
import { RAW_READY, TakenLog, gatedDigest, newWriter, writerName } from './taken-log.js';

const MIB = 1024 * 1024;
const holderClientUrl = new URL('../../src/holder-client/index.js', import.meta.url).href;

/** Bytes that show a shift: a doubled or lost run changes the digest. */
function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = 32 + ((i * 31 + (i >> 9)) % 95);
  return bytes;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The sha256 the gated program prints once it has read its bytes. */
async function digestPrinted(ctl: RecordingController): Promise<string> {
  const text = await ctl.waitForText(/[0-9a-f]{64}/, 60_000);
  return /[0-9a-f]{64}/.exec(text)![0];
}

/** Samples `read` every 100 ms until it gives the same number `times` in a row. */
async function steadyValue(read: () => number, times: number): Promise<number> {
  const seen: number[] = [];
  return waitFor(
    () => {
      seen.push(read());
      const last = seen.slice(-times);
      return last.length === times && last.every((v) => v === last[0]) ? last[0]! : null;
    },
    { intervalMs: 100, timeoutMs: 60_000, what: 'the count to stop moving', describe: () => `counts: ${seen.slice(-6).join(', ')}` },
  );
}

describe('INPUT_TAKEN means the holder has the bytes', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('for a program that does not read, the count stops short of what was sent, and reaches it once the program reads', async (t) => {
    const scope = useTestScope(t);
    const SENT_BYTES = 1 * MIB;
    const h = await startHolder(scope, { argv: gatedDigest(SENT_BYTES) });
    const ctl = await RecordingController.start(scope, h.socketPath);
    await ctl.waitForText(RAW_READY);
    const taken = new TakenLog(ctl.conn);
    const a = newWriter();
    const input = pattern(SENT_BYTES);
    ctl.conn.inputFrom(a, 0, input);

    const stalled = await steadyValue(() => taken.totalOf(a) ?? -1, 5);
    t.diagnostic(`with the program not reading, the holder took ${stalled} of ${SENT_BYTES} bytes`);
    assert.ok(stalled > 0, 'the holder took what fits its buffer and the PTY');
    assert.ok(stalled < SENT_BYTES / 2, `the holder answered ${stalled}: more than its buffer and the PTY can hold`);

    writeFileSync(join(h.dir, 'go'), '');
    await taken.waitForTotal(a, SENT_BYTES, 60_000);
    assert.equal(await digestPrinted(ctl), sha256(input), 'the program read the bytes sent, once each, in order');
  });

  test('a controller SIGKILLed mid-stream: a new one resends from 0, and the program gets every byte exactly once', async (t) => {
    const scope = useTestScope(t);
    const SENT_BYTES = 2 * MIB;
    const h = await startHolder(scope, { argv: gatedDigest(SENT_BYTES) });
    const first = await RecordingController.start(scope, h.socketPath);
    await first.waitForText(RAW_READY);
    first.conn.dispose();
    const writer = newWriter();

    // A stand-in server in a process of its own: sends the whole input as one
    // writer and prints each count the holder answers, until we kill it.
    const controllerScript = `
      import { HolderConnection } from ${JSON.stringify(holderClientUrl)};
      const pattern = (n) => { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = 32 + ((i * 31 + (i >> 9)) % 95); return b; };
      const conn = await HolderConnection.connect(${JSON.stringify(h.socketPath)});
      for (;;) { if ((await conn.acquire()) === 'acquired') break; }
      conn.onInputTaken((w, total) => process.stdout.write(total + '\\n'));
      conn.inputFrom(Buffer.from(${JSON.stringify(writerName(writer))}, 'hex'), 0, pattern(${SENT_BYTES}));
      setInterval(() => {}, 1 << 30);
    `;
    const controller = spawn(process.execPath, ['--input-type=module', '-e', controllerScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    scope.trackPid(controller.pid!);
    let out = '';
    controller.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    const lastReported = (): number => Number(out.trim().split('\n').at(-1) ?? 0);
    // Killed once the holder is full: it has taken part, and more is on the way.
    await waitFor(() => lastReported() > 0, { what: 'the first count the holder answers the old controller', describe: () => JSON.stringify(out) });
    const before = await steadyValue(lastReported, 5);
    const exited = new Promise((resolve) => controller.once('exit', resolve));
    controller.kill('SIGKILL');
    await exited;
    assert.equal(isProcessAlive(controller.pid!), false);
    assert.ok(before > 0 && before < SENT_BYTES, `the old controller was told ${before} of ${SENT_BYTES}`);
    t.diagnostic(`the killed controller had been told ${before} of ${SENT_BYTES} bytes`);

    // The simplest recovery: everything again, from 0; the holder drops what
    // it has. (No answer comes before the program reads: frames are read in
    // order, and the holder reads none while its input buffer is full.)
    const ctl = await RecordingController.start(scope, h.socketPath);
    const taken = new TakenLog(ctl.conn);
    const input = pattern(SENT_BYTES);
    ctl.conn.inputFrom(writer, 0, input);
    writeFileSync(join(h.dir, 'go'), '');
    await taken.waitForTotal(writer, SENT_BYTES, 60_000);
    assert.equal(await digestPrinted(ctl), sha256(input), 'the program read every byte once, in order');
  });
});
