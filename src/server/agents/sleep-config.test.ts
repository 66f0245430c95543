// The default idle time before an agent sleeps: the environment variable wins
// over config.json, 0 means never, and a value that is not a number of
// minutes is a warning and the default, never a silent change.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSleepAfterMs } from './sleep-config.js';
import { DEFAULT_AGENT_SLEEP_AFTER_MS } from '../../protocol/api/agents.js';

function withHome(config: string | null, fn: (home: string) => void): void {
  const home = mkdtempSync(join(tmpdir(), 'tend-sleep-config-'));
  try {
    if (config !== null) writeFileSync(join(home, 'config.json'), config);
    fn(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe('agentSleepAfterMs', () => {
  test('no variable, no file: 30 minutes', () =>
    withHome(null, (home) => assert.deepEqual(agentSleepAfterMs({}, home), { ms: DEFAULT_AGENT_SLEEP_AFTER_MS, warnings: [] })));

  test('the variable in minutes (fractions too), 0 is never, and it wins over the file', () =>
    withHome('{"agentSleepMinutes": 5}', (home) => {
      assert.deepEqual(agentSleepAfterMs({ TEND_AGENT_SLEEP_MINUTES: '10' }, home), { ms: 600_000, warnings: [] });
      assert.deepEqual(agentSleepAfterMs({ TEND_AGENT_SLEEP_MINUTES: '0.5' }, home), { ms: 30_000, warnings: [] });
      assert.deepEqual(agentSleepAfterMs({ TEND_AGENT_SLEEP_MINUTES: '0' }, home), { ms: null, warnings: [] });
      assert.deepEqual(agentSleepAfterMs({}, home), { ms: 300_000, warnings: [] });
    }));

  test('the file: 0 is never; other keys are left alone', () =>
    withHome('{"agentSleepMinutes": 0, "somethingElse": true}', (home) => assert.deepEqual(agentSleepAfterMs({}, home), { ms: null, warnings: [] })));

  test('bad values: a warning naming the value, and the default', () => {
    withHome(null, (home) => {
      for (const bad of ['ten', '-1', '1e3', '20000']) {
        const r = agentSleepAfterMs({ TEND_AGENT_SLEEP_MINUTES: bad }, home);
        assert.equal(r.ms, DEFAULT_AGENT_SLEEP_AFTER_MS, bad);
        assert.equal(r.warnings.length, 1);
        assert.match(r.warnings[0]!, new RegExp(`TEND_AGENT_SLEEP_MINUTES="${bad}" is not a number of minutes.*default 30 minutes`));
      }
    });
    withHome('{"agentSleepMinutes": "30"}', (home) => {
      const r = agentSleepAfterMs({}, home);
      assert.equal(r.ms, DEFAULT_AGENT_SLEEP_AFTER_MS);
      assert.match(r.warnings[0]!, /"agentSleepMinutes" in .*config\.json is "30", not a number of minutes/);
    });
    withHome('{agentSleepMinutes: 3}', (home) => {
      const r = agentSleepAfterMs({}, home);
      assert.equal(r.ms, DEFAULT_AGENT_SLEEP_AFTER_MS);
      assert.match(r.warnings[0]!, /config\.json is not valid JSON/);
    });
  });
});
