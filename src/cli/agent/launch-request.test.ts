import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentLaunchRequest, parseSleepAfter } from './launch-request.js';
import { CliError } from '../cli-error.js';

test('--sleep-after takes seconds, minutes or hours; a bare number is minutes; 0 is never', () => {
  assert.equal(parseSleepAfter('--sleep-after', '90s'), 90_000);
  assert.equal(parseSleepAfter('--sleep-after', '10m'), 600_000);
  assert.equal(parseSleepAfter('--sleep-after', '1.5h'), 5_400_000);
  assert.equal(parseSleepAfter('--sleep-after', '15'), 900_000);
  assert.equal(parseSleepAfter('--sleep-after', '0'), 0);
  for (const bad of ['', '-1m', '10 minutes', '25h', 'soon']) {
    assert.throws(() => parseSleepAfter('--sleep-after', bad), (err: CliError) => err.exitCode === 2 && /--sleep-after takes a time like 90s/.test(err.message), bad);
  }
});

test('the launch request carries only what was given', () => {
  assert.deepEqual(agentLaunchRequest('claude', null, undefined), { kind: 'claude' });
  assert.deepEqual(agentLaunchRequest('codex', [], 0), { kind: 'codex', sleepAfterMs: 0 });
  assert.deepEqual(agentLaunchRequest('gemini', ['-m', 'x'], 60_000), { kind: 'gemini', args: ['-m', 'x'], sleepAfterMs: 60_000 });
});
