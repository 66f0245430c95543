// An await whose session ends under it says how it ended: a shell killed by
// a signal reads "was killed by signal 9 (SIGKILL)", never a code of -1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer } from './control-server.js';

test('tend await in a shell that SIGKILLs itself fails saying the program was killed by signal 9 (SIGKILL)', { timeout: CONTROL_TEST_TIMEOUT_MS }, async () => {
  const s = startControlServer();
  try {
    await s.newShell(['bash'], { name: 'doomed' });
    const r = await s.cli(['await', ':doomed', '--timeout', '60', '--', 'kill -9 $$']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /session :doomed ended before the command finished: its program was killed by signal 9 \(SIGKILL\)/);
    assert.doesNotMatch(r.stderr, /-1/);
  } finally {
    await s.dispose();
  }
});
