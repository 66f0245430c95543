// A newer server speaks to every holder version tend has shipped: the last
// holders of protocol versions 1 and 2, built from this repository's history,
// run a session through a real server started with them (TEND_HOLDER): its
// output, input and resize work, and POST /v1/holders/upgrade leaves the
// holder as it is, too old to hand over, and still working.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startTestServer, waitFor } from '../server/harness.js';
import { LAST_VERSION_1_COMMIT, LAST_VERSION_2_COMMIT, buildHolderAt } from '../support/historic-holder.js';
import type { SessionInfo, UpgradeHoldersReply } from '../../src/protocol/api/index.js';

const TEST_TIMEOUT_MS = 120_000;

const versions: Array<[number, string]> = [
  [1, LAST_VERSION_1_COMMIT],
  [2, LAST_VERSION_2_COMMIT],
];

describe('a server with holders of older protocol versions', { timeout: TEST_TIMEOUT_MS }, () => {
  for (const [version, commit] of versions) {
    test(`a version-${version} holder: output, input and resize through the server; the upgrade skips it as too old and it keeps working`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), `tend-holder-v${version}-`));
      try {
        const built = buildHolderAt(commit, dir);
        if ('missing' in built) {
          t.skip(built.missing);
          return;
        }
        const server = startTestServer({ TEND_HOLDER: built.path });
        try {
          assert.equal((await server.cli(['server', 'start'])).code, 0);
          const created = await server.api<SessionInfo>('POST', '/v1/sessions', {
            argv: ['sh', '-c', 'echo started-$((40+2)); while read line; do echo "got:$line"; stty size; done'],
            name: 'old',
          });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          const screen = async () => (await server.api<{ text: string }>('GET', '/v1/sessions/:old/screen')).body.text;
          await waitFor('its output', async () => (await screen()).includes('started-42'));

          assert.equal((await server.api('POST', '/v1/sessions/:old/resize', { cols: 100, rows: 30 })).status, 200);
          assert.equal((await server.api('POST', '/v1/sessions/:old/input', { text: 'first\n' })).status, 200);
          await waitFor('the input and the new size', async () => /got:first\s+30 100/.test(await screen()), 20_000);

          // To this tree's holder, which could take over: the old one cannot hand over to it.
          const upgrade = await server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { holderPath: join(repoRoot, 'holder', 'build', 'tend-holder') });
          assert.equal(upgrade.status, 200, JSON.stringify(upgrade.body));
          assert.deepEqual(upgrade.body.sessions.map((s) => ({ result: s.result, reason: s.result === 'skipped' ? s.reason : null })), [{ result: 'skipped', reason: 'too-old' }]);
          const skipped = upgrade.body.sessions[0]!;
          assert.match(skipped.result === 'skipped' ? skipped.message : '', new RegExp(`protocol ${version}: too old to hand over; it keeps working as it is`));

          const after = (await server.api<SessionInfo>('GET', '/v1/sessions/:old')).body;
          assert.equal(after.status, 'running');
          assert.equal(after.holderPid, created.body.holderPid);
          assert.equal((await server.api('POST', '/v1/sessions/:old/input', { text: 'second\n' })).status, 200);
          await waitFor('input after the upgrade', async () => (await screen()).includes('got:second'));
        } finally {
          await server.dispose();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
