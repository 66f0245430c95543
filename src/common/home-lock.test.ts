import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAlive } from './home-lock.js';

/** The first line a stream writes. */
function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) resolve(text.slice(0, nl));
    });
    stream.on('end', () => reject(new Error(`no line, only ${JSON.stringify(text)}`)));
  });
}

test('a live process is alive; a pid nobody has is not', () => {
  assert.equal(isAlive(process.pid), true);
  assert.equal(isAlive(2 ** 22 + 12345), false); // above Linux's largest pid
});

test('a process that exited but is not reaped yet (a zombie) is not alive', { skip: !existsSync('/proc/self/stat') && 'no /proc' }, async () => {
  // The parent starts a child that exits at once, then blocks its own event
  // loop, so it never reaps it: the child stays a zombie while the parent lives.
  const parent = spawn(process.execPath, ['-e', [
    "const child = require('node:child_process').spawn('true');",
    "process.stdout.write(child.pid + '\\n');",
    'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);',
  ].join(' ')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const pid = Number(await firstLine(parent.stdout!));
    assert.ok(Number.isInteger(pid) && pid > 0, `child pid ${pid}`);
    const deadline = Date.now() + 20_000;
    while (isAlive(pid)) {
      assert.ok(Date.now() < deadline, `pid ${pid} still counts as alive after it exited`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Still there for signal 0: it is the zombie that isAlive saw through, not a reaped pid.
    assert.doesNotThrow(() => process.kill(pid, 0));
  } finally {
    parent.kill('SIGKILL');
  }
});
