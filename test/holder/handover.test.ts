// A holder replaces its own binary under a running program (EXEC, protocol
// version 3): the same pid, the same child, the PTY never hung up, the
// stream's offsets and the writers' counts carried over, the ring readable
// after. A path that is not a holder is refused and the holder goes on; a
// new image given a state file it cannot trust says why and ends.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { HolderConnection, defaultHolderPath } from '../../src/holder-client/index.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, nodeProgram, startHolder } from './holder-fixture.js';
import { RAW_READY, TakenLog, gatedDigest, newWriter } from './taken-log.js';
import { createHash } from 'node:crypto';

/** The holder under test, absolute (the ASan run names it relative to the package). */
const holderPath = resolve(defaultHolderPath());

/**
 * Writes numbered lines without pause; echoes each line of input it reads
 * (raw mode: no echo by the terminal, so every byte is seen once); and
 * writes a file, not the terminal, if it ever gets SIGHUP.
 */
function counterProgram(sighupFile: string): string[] {
  return nodeProgram(`
    const fs = require('fs');
    process.on('SIGHUP', () => { fs.writeFileSync(${JSON.stringify(sighupFile)}, 'SIGHUP'); });
    process.stdin.setRawMode(true);
    let line = '';
    process.stdin.on('data', (d) => {
      for (const ch of d.toString()) {
        if (ch === '\\r') { process.stdout.write('got:' + line + '\\n'); line = ''; } else line += ch;
      }
    });
    let n = 0;
    const tick = () => { let s = ''; for (let i = 0; i < 20; i++) s += 'N' + (n++) + '\\n'; process.stdout.write(s, () => setTimeout(tick, 1)); };
    tick();
  `);
}

/** The numbers of the counter's lines, in the order they came. */
function counted(text: string): number[] {
  return [...text.matchAll(/N(\d+)\r\n/g)].map((m) => Number(m[1]));
}

function assertConsecutive(numbers: number[]): void {
  assert.ok(numbers.length > 100, `only ${numbers.length} numbered lines`);
  for (let i = 0; i < numbers.length; i++) {
    if (numbers[i] !== i) assert.fail(`line ${i} says N${numbers[i]}: a line lost or doubled near ${numbers.slice(Math.max(0, i - 3), i + 3).join(',')}`);
  }
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('holder hand-over to a new binary', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('under a program writing without pause and reading input: same pid and child, no hang-up, every byte and every key once', async (t) => {
    const scope = useTestScope(t);
    const dir = scope.tempDir('tend-handover-');
    const sighupFile = join(dir, 'sighup');
    const logPath = join(dir, 'holder.log');
    const h = await startHolder(scope, { argv: counterProgram(sighupFile), logPath });
    const first = await RecordingController.start(scope, h.socketPath, 0);
    const before = first.conn.lastState;
    assert.ok(first.conn.speaksExec, `the holder speaks version ${first.conn.version}`);
    assert.match(before.build ?? '', /^[0-9a-f]{8}/);
    await first.waitForBytes(20_000);
    const writer = newWriter();
    const taken = new TakenLog(first.conn);
    first.conn.inputFrom(writer, 0, Buffer.from('before\r'));
    await taken.waitForTotal(writer, 7);

    const outcome = await first.conn.exec(holderPath);
    assert.deepEqual(outcome, { outcome: 'closed' });
    const handedAt = first.endOffset;

    // The new image takes the next controller (start asks for the lease until the old close has reached it); the stream goes on from where the first one stopped.
    const second = await RecordingController.start(scope, h.socketPath, handedAt);
    const after = second.conn.lastState;
    assert.equal(after.generation, before.generation, 'the generation carries over');
    assert.equal(after.childPid, h.childPid, 'the same child');
    assert.equal(after.startedAtMs, before.startedAtMs);
    assert.equal(after.ringCapacity, before.ringCapacity);
    assert.ok(after.offset >= handedAt, `offset ${after.offset} went back from ${handedAt}`);
    assert.equal(after.exited, false);
    assert.ok(isProcessAlive(h.holderPid), 'the holder process (same pid) lives');
    const taken2 = new TakenLog(second.conn);
    // Sent again from 0: the writers' table came along, so "before" is not taken twice.
    second.conn.inputFrom(writer, 0, Buffer.from('before\rduring\r'));
    await taken2.waitForTotal(writer, 14);
    second.conn.inputFrom(writer, 14, Buffer.from('after\r'));
    await taken2.waitForTotal(writer, 20);
    await second.waitForText('got:after');
    await second.waitForBytes(second.received + 20_000);

    const whole = first.text() + second.text();
    assert.equal(second.startOffset, handedAt, 'the second stream starts where the first ended');
    assert.equal(second.gap, false);
    assertConsecutive(counted(whole));
    for (const key of ['before', 'during', 'after']) assert.equal(occurrences(whole, `got:${key}\r\n`), 1, `got:${key} once`);
    assert.ok(isProcessAlive(h.childPid), 'the child lives');
    assert.equal(existsSync(sighupFile), false, 'the program never got SIGHUP');
    // The new image said so in the same log (stderr is kept across exec), under the same pid.
    const log = readFileSync(logPath, 'utf8');
    assert.match(log, new RegExp(`tend-holder\\[${h.holderPid}\\]: handing over to `));
    assert.match(log, new RegExp(`tend-holder\\[${h.holderPid}\\]: resumed as build \\S+: child ${h.childPid}, offset \\d+`));

    // The ring came along whole: a replay from 0 is the same bytes both controllers got.
    const reader = scope.own(await HolderConnection.connect(h.socketPath));
    const replay = await reader.state();
    assert.equal(replay.ringStart, 0);
    second.conn.release();
    await waitFor(async () => (await reader.acquire()) === 'acquired', { what: 'the lease for a third controller', intervalMs: 50 });
    const chunks: Buffer[] = [];
    reader.onReplay((e) => chunks.push(Buffer.from(e.bytes)));
    const range = await reader.dumpSince(0);
    assert.equal(range.from, 0);
    const ring = Buffer.concat(chunks);
    assert.ok(ring.length >= second.endOffset, `replay of ${ring.length} bytes, streamed ${second.endOffset}`);
    assert.ok(ring.subarray(0, handedAt).equals(first.bytes()), 'the ring before the hand-over is what the first controller got');
  });

  test('a controller that comes back late still gets every byte: the new image reads the PTY no further ahead of it than flow control allows', async (t) => {
    const scope = useTestScope(t);
    const dir = scope.tempDir('tend-handover-hold-');
    const ringBytes = 64 * 1024;
    const h = await startHolder(scope, { argv: counterProgram(join(dir, 'sighup')), ringBytes });
    const first = await RecordingController.start(scope, h.socketPath, 0);
    await first.waitForBytes(4 * ringBytes);
    assert.deepEqual(await first.conn.exec(holderPath), { outcome: 'closed' });
    const handedAt = first.endOffset;
    // A bystander (no lease) watches the new image's offset until it stops: held for the controller, it
    // stays within the flow-control mark; reading on as with no controller, it would pass the ring.
    const watcher = scope.own(await HolderConnection.connect(h.socketPath, { timeoutMs: 10_000 }));
    let last = -1;
    let steady = 0;
    await waitFor(async () => {
      const offset = (await watcher.state()).offset;
      steady = offset === last ? steady + 1 : 0;
      last = offset;
      return steady >= 10 || offset - handedAt > 2 * ringBytes;
    }, { what: 'the new image to stop reading the PTY', intervalMs: 30, describe: () => `offset ${last}, handed over at ${handedAt}` });
    assert.ok(last - handedAt <= ringBytes, `the new image read ${last - handedAt} bytes past the controller's place, more than its ${ringBytes}-byte ring`);
    const second = await RecordingController.start(scope, h.socketPath, handedAt);
    await second.waitForBytes(4 * ringBytes);
    assert.equal(second.gap, false, 'no byte left the ring before the controller came back');
    assert.equal(second.startOffset, handedAt);
    assertConsecutive(counted(first.text() + second.text()));
  });

  test('input the holder took but the program has not read yet goes over with it and reaches the program once, in order', async (t) => {
    const scope = useTestScope(t);
    // More than the PTY holds, less than the holder takes while the program reads nothing: most waits in the holder.
    const SENT_BYTES = 40 * 1024;
    const h = await startHolder(scope, { argv: gatedDigest(SENT_BYTES) });
    const first = await RecordingController.start(scope, h.socketPath, 0);
    await first.waitForText(RAW_READY);
    const input = Buffer.alloc(SENT_BYTES);
    for (let i = 0; i < SENT_BYTES; i++) input[i] = 32 + ((i * 31 + (i >> 9)) % 95);
    const writer = newWriter();
    const taken = new TakenLog(first.conn);
    first.conn.inputFrom(writer, 0, input);
    await taken.waitForTotal(writer, SENT_BYTES);
    assert.deepEqual(await first.conn.exec(holderPath), { outcome: 'closed' });
    const second = await RecordingController.start(scope, h.socketPath, first.endOffset);
    // The writer's count came along: asking again gives all of it.
    assert.equal(await new TakenLog(second.conn).ask(second.conn, writer, 0), SENT_BYTES);
    writeFileSync(join(h.dir, 'go'), '');
    const text = await second.waitForText(/[0-9a-f]{64}/, 60_000);
    assert.equal(/[0-9a-f]{64}/.exec(text)![0], createHash('sha256').update(input).digest('hex'));
  });

  test('a child that has exited: its status carries over and is told again', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['sh', '-c', 'echo bye; exit 7'] });
    const first = await RecordingController.start(scope, h.socketPath, 0);
    assert.deepEqual(await first.waitForExit(), { code: 7, signal: 0 });
    assert.deepEqual(await first.conn.exec(holderPath), { outcome: 'closed' });
    const second = await RecordingController.start(scope, h.socketPath, 0);
    assert.equal(second.conn.lastState.exited, true);
    assert.equal(second.conn.lastState.exitCode, 7);
    assert.deepEqual(await second.waitForExit(), { code: 7, signal: 0 });
    assert.match(second.text(), /bye/);
  });

  test('a path that is not a holder is refused with the reason, and the holder and the connection go on', async (t) => {
    const scope = useTestScope(t);
    const dir = scope.tempDir('tend-handover-bad-');
    const notExecutable = join(dir, 'plain-file');
    writeFileSync(notExecutable, 'not a program');
    const h = await startHolder(scope, { argv: ['sh', '-c', 'stty -echo; while read l; do echo "got:$l"; done'] });
    const rec = await RecordingController.start(scope, h.socketPath, 0);
    const cases: Array<[string, RegExp]> = [
      ['relative/tend-holder', /not an absolute path/],
      [join(dir, 'missing'), /not an executable file/],
      [notExecutable, /not an executable file/],
      ['/bin/sh', /not a tend-holder that can take over|did not answer/],
    ];
    for (const [path, reason] of cases) {
      const outcome = await rec.conn.exec(path);
      assert.equal(outcome.outcome, 'refused', `${path}: ${JSON.stringify(outcome)}`);
      assert.match((outcome as { reason: string }).reason, reason, path);
    }
    assert.equal(rec.conn.isClosed, false);
    rec.conn.input('still here\n');
    await rec.waitForText('got:still here');
    assert.equal(rec.conn.lastState.childPid, h.childPid);
    assert.ok(await rec.conn.ping() >= 0);
  });

  test('a new image given a state file it cannot trust says why and exits 3, never waiting', async (t) => {
    const scope = useTestScope(t);
    const dir = scope.tempDir('tend-handover-state-');
    const header = (prefixBytes: number, ringBytes: number, format = 2): Buffer => {
      const b = Buffer.alloc(24);
      b.write('tendhst\n', 0, 'latin1');
      b.writeUInt32LE(format, 8);
      b.writeUInt32LE(prefixBytes, 12);
      b.writeBigUInt64LE(BigInt(ringBytes), 16);
      return b;
    };
    // The holder's fields all zero, then a PTY of a sane size whose descriptor is 3: in the new image, the state file itself.
    const HOLDER_FIELDS_BYTES = 45;
    const ptyFields = Buffer.alloc(HOLDER_FIELDS_BYTES + 25);
    ptyFields.writeUInt32LE(3, HOLDER_FIELDS_BYTES);
    ptyFields.writeUInt32LE(process.pid, HOLDER_FIELDS_BYTES + 4);
    ptyFields.writeUInt16LE(80, HOLDER_FIELDS_BYTES + 8);
    ptyFields.writeUInt16LE(24, HOLDER_FIELDS_BYTES + 10);
    const cases: Array<[string, Buffer, RegExp]> = [
      ['empty', Buffer.alloc(0), /ends inside its header/],
      ['another magic', Buffer.concat([Buffer.from('NOTSTATE'), Buffer.alloc(16)]), /does not start as a holder's state does/],
      ['a format from the future', header(0, 0, 99), /format 99; this holder reads 2 to 2/],
      ['a prefix over the limit', header(0x7fff_ffff, 0), /a length over what a holder writes/],
      ['a prefix cut short', Buffer.concat([header(400, 0), Buffer.alloc(100)]), /ends inside its fields/],
      ['fields missing', Buffer.concat([header(20, 0), Buffer.alloc(20)]), /ends inside the holder's fields/],
      ['a grace left past the exit grace', Buffer.concat([header(200, 0), Buffer.alloc(200, 0x01)]), /an exit grace out of range/],
      ['a PTY descriptor that is no terminal', Buffer.concat([header(ptyFields.length, 0), ptyFields]), /its PTY descriptor is not an open terminal/],
    ];
    for (const [name, bytes, reason] of cases) {
      const file = join(dir, name.replace(/\W+/g, '-'));
      writeFileSync(file, bytes);
      const fd = openSync(file, 'r');
      const proc = spawn(holderPath, ['--resume-fd', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
      closeSync(fd);
      if (proc.pid !== undefined) scope.trackPid(proc.pid);
      let stderr = '';
      proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((done) => proc.once('exit', (c) => done(c)));
      assert.equal(code, 3, `${name}: exit ${code}; ${stderr}`);
      assert.match(stderr, /cannot resume: /, name);
      assert.match(stderr, reason, name);
    }
  });
});
