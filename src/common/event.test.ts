import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Emitter } from './event.js';

test('listeners hear each event in the order they subscribed', () => {
  const emitter = new Emitter<number>();
  const heard: string[] = [];
  emitter.on((n) => heard.push(`a${n}`));
  emitter.on((n) => heard.push(`b${n}`));
  emitter.fire(1);
  emitter.fire(2);
  assert.deepEqual(heard, ['a1', 'b1', 'a2', 'b2']);
});

test('the same function subscribed twice is two subscriptions, released one at a time', () => {
  const emitter = new Emitter<void>();
  let calls = 0;
  const listener = (): void => {
    calls++;
  };
  const first = emitter.on(listener);
  emitter.on(listener);
  assert.equal(emitter.size, 2);
  emitter.fire();
  assert.equal(calls, 2);
  first.dispose();
  first.dispose();
  assert.equal(emitter.size, 1);
  emitter.fire();
  assert.equal(calls, 3);
});

test('a listener removed by an earlier one during a fire is not called for that event', () => {
  const emitter = new Emitter<string>();
  const heard: string[] = [];
  emitter.on(() => later.dispose());
  const later = emitter.on((e) => heard.push(e));
  emitter.fire('x');
  assert.deepEqual(heard, []);
  assert.equal(emitter.size, 1);
});

test('a listener added during a fire hears the next event, not this one', () => {
  const emitter = new Emitter<string>();
  const heard: string[] = [];
  let added = false;
  emitter.on(() => {
    if (added) return;
    added = true;
    emitter.on((e) => heard.push(e));
  });
  emitter.fire('first');
  emitter.fire('second');
  assert.deepEqual(heard, ['second']);
});

test('dispose drops every listener, and a disposed emitter keeps no new ones and never fires', () => {
  const emitter = new Emitter<number>();
  const heard: number[] = [];
  emitter.on((n) => heard.push(n));
  emitter.dispose();
  assert.equal(emitter.size, 0);
  const late = emitter.on((n) => heard.push(n));
  assert.equal(emitter.size, 0);
  emitter.fire(1);
  late.dispose();
  assert.deepEqual(heard, []);
});

test('a listener that disposes the emitter mid-fire stops the rest of that fire', () => {
  const emitter = new Emitter<number>();
  const heard: number[] = [];
  emitter.on(() => emitter.dispose());
  emitter.on((n) => heard.push(n));
  emitter.fire(1);
  assert.deepEqual(heard, []);
});

// In a process of its own: the rule sends the error to the process's
// uncaught-error handler, which in this test runner would fail the test.
test('a listener that throws: fire returns, the others still hear the event, and the error reaches the uncaught handler afterwards', () => {
  const eventModule = fileURLToPath(new URL('./event.js', import.meta.url));
  const script = `
    const { Emitter } = await import(${JSON.stringify(eventModule)});
    const lines = [];
    process.on('uncaughtException', (err) => {
      lines.push('uncaught: ' + err.message);
      console.log(lines.join('\\n'));
    });
    const emitter = new Emitter();
    emitter.on(() => { throw new Error('the first listener broke'); });
    emitter.on((n) => lines.push('second heard ' + n));
    emitter.fire(7);
    lines.push('fire returned');
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(child.stderr, '');
  assert.deepEqual(child.stdout.trim().split('\n'), ['second heard 7', 'fire returned', 'uncaught: the first listener broke']);
});
