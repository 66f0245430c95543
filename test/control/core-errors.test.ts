// The server core raises its own errors and http/core-errors.ts answers each
// with its API code: every one of them reached through the real API, so a
// core error that lost its mapping shows up here as a 500.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_TEST_TIMEOUT_MS, withServer } from './control-server.js';
import { waitFor } from '../server/harness.js';

const IDLE = ['sleep', '600'];
/** An id of the right shape that no session has. */
const NO_SUCH_ID = 'abcdef01';

describe('errors of the server core', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('each is answered with its API code and its message', () =>
    withServer(async (s) => {
      const expect = async (what: string, call: Promise<{ status: number; body: any }>, status: number, code: string, message: RegExp) => {
        const r = await call;
        assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, code, what);
        assert.match(r.body.error.message, message, what);
        return r.body.error;
      };
      assert.equal((await s.cli(['server', 'start'])).code, 0);
      const one = (await s.api('POST', '/v1/sessions', { name: 'one', argv: IDLE })).body.id as string;
      const ended = (await s.api('POST', '/v1/sessions', { name: 'ended', argv: ['true'] })).body.id as string;
      await waitFor('the session of `true` to exit', async () => (await s.api('GET', `/v1/sessions/${ended}`)).body.status === 'exited');

      // Names (NameTakenError), starts (SpawnError).
      await expect('a new session with a name in use', s.api('POST', '/v1/sessions', { name: 'one', argv: IDLE }), 409, 'conflict', /already named "one"/);
      await expect('a rename to a name in use', s.api('PATCH', '/v1/sessions/:ended', { name: 'one' }), 409, 'conflict', /already named "one"/);
      await expect('a program that does not exist', s.api('POST', '/v1/sessions', { argv: ['no-such-program-tend-test'] }), 400, 'spawn_failed', /no-such-program-tend-test/);

      // A session that is not running (SessionStateError), and the one route that says it otherwise.
      await expect('a resize of an exited session', s.api('POST', '/v1/sessions/:ended/resize', { cols: 90, rows: 20 }), 409, 'session_not_running', /exited/);
      await expect('a signal to an exited session', s.api('POST', '/v1/sessions/:ended/signal', { signal: 'INT' }), 409, 'session_not_running', /exited/);
      await expect('a revive of a running session', s.api('POST', '/v1/sessions/:one/revive', {}), 409, 'not_revivable', /./);

      // Targets (EmptyTargetError; the others are targets.test.ts's).
      await expect('an empty target', s.api('POST', '/v1/workspaces/w/sessions', { session: '' }), 400, 'bad_target', /empty session target/);

      // The workspace rules (LayoutError, UnknownSessionsError, WorkspaceConflictError).
      await expect('a layout that is no tree', s.api('PUT', '/v1/workspaces/w', { layout: { type: 'leaf' } }), 400, 'bad_request', /layout/);
      const unknown = await expect('a layout of an unknown session', s.api('PUT', '/v1/workspaces/w',
        { layout: { type: 'session', sessionId: NO_SUCH_ID } }), 400, 'bad_request', new RegExp(NO_SUCH_ID));
      assert.deepEqual(unknown.sessions, [NO_SUCH_ID]);
      assert.equal((await s.api('PUT', '/v1/workspaces/w1', { layout: { type: 'session', sessionId: one } })).status, 200);
      await expect('a session already in another workspace', s.api('PUT', '/v1/workspaces/w2', { layout: { type: 'session', sessionId: one } }), 409, 'conflict', /w1/);
    }));
});
