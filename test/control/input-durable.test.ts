// Input is answered only once the session's holder has it, and a retry
// neither loses nor doubles (issue: an acknowledged paste vanished in a
// crash). A real server, real holders, a program that reads its terminal
// slowly and keeps every byte it reads in a file; the server is SIGKILLed by
// its PID in the middle of a paste.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, waitFor, type CliResult } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, type ControlServer, withServer } from './control-server.js';

const PASTE_BYTES = 1024 * 1024;

/**
 * A session whose program puts its terminal in raw mode (every byte passes
 * unchanged, none echoed) and appends what it reads to `file`, 4 KiB at a
 * time with a 20 ms pause between reads (1 MiB takes over 5 s): slower than
 * a paste arrives, so the paste waits in the holder and the kernel while the
 * server is killed, with seconds to spare on a loaded machine.
 */
async function slowReader(s: ControlServer, name: string, file: string): Promise<string> {
  if (s.serverPid() === null) assert.equal((await s.cli(['server', 'start'])).code, 0);
  const script = `stty raw -echo -iexten; echo reading; while :; do dd bs=4096 count=1 status=none >> '${file}'; sleep 0.02; done`;
  const created = await s.api<{ id: string }>('POST', '/v1/sessions', { name, argv: ['sh', '-c', script], cols: 80, rows: 24 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await s.holderPids();
  await waitFor('the reader to set its terminal raw', async () => /reading/.test(await s.screen(`:${name}`)), 30_000);
  return created.body.id;
}

/** `tend send TARGET --stdin` with binary input. */
function sendStdin(s: ControlServer, target: string, bytes: Buffer, extra: string[] = []): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'tend.js'), 'send', target, '--stdin', '--json', ...extra], { env: s.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (stdout += c));
    child.stderr.on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tend send did not finish in time; stderr: ${stderr}`));
    }, 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(bytes);
  });
}

const sizeOf = (file: string): number => (existsSync(file) ? statSync(file).size : 0);

/** Fails at the first byte that differs, naming where: the whole file must be the paste, once. */
function assertSameBytes(got: Buffer, want: Buffer, what: string): void {
  if (got.equals(want)) return;
  let at = 0;
  while (at < got.length && at < want.length && got[at] === want[at]) at++;
  assert.fail(`${what}: ${got.length} bytes arrived for ${want.length} sent; the first difference is at byte ${at}`);
}

describe('durable input', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('a 1 MiB `tend send --stdin` across a server SIGKILL mid-paste: exit 0, every byte arrives once', () =>
    withServer(async (s) => {
      const file = join(s.shellHome, 'pasted.bin');
      await slowReader(s, 'p', file);
      const paste = randomBytes(PASTE_BYTES);
      const sending = sendStdin(s, ':p', paste);
      // Killed while the paste is on its way: part read, most still waiting for the reader.
      await waitFor('the reader to have read part of the paste', () => sizeOf(file) >= 64 * 1024, 60_000, 5);
      const pid = s.serverPid();
      assert.ok(pid !== null);
      assert.ok(sizeOf(file) < PASTE_BYTES, 'the paste was still arriving when the server was killed');
      process.kill(pid, 'SIGKILL');

      const sent = await sending;
      assert.equal(sent.code, 0, `tend send failed: ${sent.stderr}`);
      assert.equal((JSON.parse(sent.stdout) as { bytes: number }).bytes, PASTE_BYTES);
      assert.notEqual(s.serverPid(), pid, 'tend send started a new server and finished the paste through it');
      // Answered means with the holder: the reader gets all of it, and nothing more.
      await waitFor('the reader to read the whole paste', () => sizeOf(file) >= PASTE_BYTES, 60_000);
      await s.api('POST', '/v1/sessions/:p/input', { text: 'after' }); // a marker behind it: nothing doubled trails in
      await waitFor('the marker', () => sizeOf(file) >= PASTE_BYTES + 5, 30_000);
      assertSameBytes(readFileSync(file), Buffer.concat([paste, Buffer.from('after')]), 'the reader\'s file');
    }));

  test('the same body sent again with the same key arrives once; the answer says the session had it', () =>
    withServer(async (s) => {
      const file = join(s.shellHome, 'keyed.bin');
      await slowReader(s, 'k', file);
      const body = randomBytes(200 * 1024);
      const key = randomBytes(16).toString('hex');
      const first = await s.api<{ bytes: number; key: string; alreadyHad: number }>('POST', '/v1/sessions/:k/input', { base64: body.toString('base64'), key });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(first.body, { bytes: body.length, key, alreadyHad: 0 });
      const again = await s.api<{ bytes: number; alreadyHad: number }>('POST', '/v1/sessions/:k/input', { base64: body.toString('base64'), key });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.alreadyHad, body.length, 'the second try found every byte with the session');
      await s.api('POST', '/v1/sessions/:k/input', { text: 'end' });
      await waitFor('the reader to read the body and the marker', () => sizeOf(file) >= body.length + 3, 60_000);
      assertSameBytes(readFileSync(file), Buffer.concat([body, Buffer.from('end')]), 'the reader\'s file');
    }));

  test('invalid base64 and a malformed key are refused with 400, and nothing reaches the program', () =>
    withServer(async (s) => {
      const file = join(s.shellHome, 'refused.bin');
      await slowReader(s, 'r', file);
      for (const body of [{ base64: 'not base64!' }, { base64: 'QUJD=' }, { base64: 'QUJDRA' }, { text: 'x', key: 'nothex' }, { text: 'x', key: 'AB'.repeat(16) }]) {
        const res = await s.api<{ error: { code: string; message: string } }>('POST', '/v1/sessions/:r/input', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} answered ${res.status}`);
        assert.equal(res.body.error.code, 'bad_request');
        assert.match(res.body.error.message, /base64|key/);
      }
      const ok = await s.api('POST', '/v1/sessions/:r/input', { base64: Buffer.from('ok').toString('base64') });
      assert.equal(ok.status, 200);
      await waitFor('the valid input', () => sizeOf(file) >= 2, 30_000);
      assert.equal(readFileSync(file, 'latin1'), 'ok', 'only the valid input reached the program');
    }));
});
