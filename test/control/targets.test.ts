// Naming a session through the real API and CLI: a bare name is the session
// of that name, a near miss of a name (case, two letters swapped) is answered
// with the name it was probably meant to be, and ids, indexes and names keep
// their order when one target could be read as several.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_TEST_TIMEOUT_MS, withServer } from './control-server.js';

/** A session that only waits: its holder is all these tests need. */
const IDLE = ['sleep', '600'];
const ANY_SCREEN = /^/;

describe('session targets', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('a bare name is the session of that name; near misses of a name suggest it', () =>
    withServer(async (s) => {
      const htop = await s.newShell(IDLE, { name: 'htop', prompt: ANY_SCREEN });
      const vim = await s.newShell(IDLE, { name: 'vim', prompt: ANY_SCREEN });

      const bare = await s.api('GET', '/v1/sessions/htop');
      assert.equal(bare.status, 200, JSON.stringify(bare.body));
      assert.equal(bare.body.id, htop);
      const viaCli = await s.cli(['screen', 'vim']);
      assert.equal(viaCli.code, 0, viaCli.stderr);
      assert.equal((await s.api('POST', '/v1/sessions/vim/resize', { cols: 90, rows: 20 })).body.id, vim);

      const upper = await s.api('GET', `/v1/sessions/${encodeURIComponent(':HTOP')}`);
      assert.equal(upper.status, 404);
      assert.equal(upper.body.error.code, 'no_session');
      assert.deepEqual(upper.body.error.candidates, [':htop']);
      assert.match(upper.body.error.message, /did you mean :htop\?/);

      const swapped = await s.api('GET', `/v1/sessions/${encodeURIComponent(':vmi')}`);
      assert.equal(swapped.status, 404);
      assert.deepEqual(swapped.body.error.candidates, [':vim']);
      assert.match(swapped.body.error.message, /did you mean :vim\?/);

      // A bare near miss is told the same: it could only have been a name.
      const bareSwapped = await s.api('GET', '/v1/sessions/vmi');
      assert.equal(bareSwapped.status, 404);
      assert.deepEqual(bareSwapped.body.error.candidates, [':vim']);
      const cliSwapped = await s.cli(['screen', 'vmi']);
      assert.equal(cliSwapped.code, 1);
      assert.match(cliSwapped.stderr, /did you mean :vim\?/);

      // Far from every name: the old answer, every session as a candidate.
      const far = await s.api('GET', '/v1/sessions/zzzzzz');
      assert.equal(far.status, 404);
      assert.deepEqual(new Set(far.body.error.candidates), new Set([htop, vim]));
    }));

  test('an exact id comes before a name, a name before an id prefix, a number is an index', () =>
    withServer(async (s) => {
      const first = await s.newShell(IDLE, { prompt: ANY_SCREEN });
      // Named with the first session's whole id, and with the start of it.
      const namedAsId = await s.newShell(IDLE, { name: first, prompt: ANY_SCREEN });
      const prefix = first.slice(0, 3);
      const namedAsPrefix = await s.newShell(IDLE, { name: prefix, prompt: ANY_SCREEN });
      const namedAsIndex = await s.newShell(IDLE, { name: '2', prompt: ANY_SCREEN });

      const idOf = async (target: string) => {
        const r = await s.api('GET', `/v1/sessions/${encodeURIComponent(target)}`);
        assert.equal(r.status, 200, `${target}: ${JSON.stringify(r.body)}`);
        return r.body.id as string;
      };
      assert.equal(await idOf(first), first);
      assert.equal(await idOf(`:${first}`), namedAsId);
      assert.equal(await idOf(prefix), namedAsPrefix);
      // A longer prefix that is no name is still the id's (longer still if another id shares it).
      const others = [namedAsId, namedAsPrefix, namedAsIndex];
      let longer = 4;
      while (others.some((id) => id.startsWith(first.slice(0, longer)))) longer++;
      assert.equal(await idOf(first.slice(0, longer)), first);
      assert.equal(await idOf('2'), namedAsId, 'a number is an index, whatever the names');
      assert.equal(await idOf(':2'), namedAsIndex);
    }));
});
