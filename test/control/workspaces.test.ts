// Workspaces end to end: tend split, the layout API, and kills collapsing splits.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_TEST_TIMEOUT_MS, withServer } from './control-server.js';

const leaf = (sessionId: string) => ({ type: 'session', sessionId });

describe('workspaces', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('tend split puts a new session beside its target; a kill collapses the split', () =>
    withServer(async (s) => {
      const a = await s.newShell(['bash'], { name: 'a' });
      const split = await s.cli(['split', ':a', '--json', '--name', 'b', '--', 'sleep', '600']);
      assert.equal(split.code, 0, split.stderr);
      const reply = JSON.parse(split.stdout);
      const b = reply.session.id as string;
      assert.equal(reply.session.name, 'b');
      assert.deepEqual(reply.workspace.layout, { type: 'split', direction: 'right', ratio: 0.5, first: leaf(a), second: leaf(b) });
      await s.holderPids();
      const down = await s.cli(['split', b, '--down', '--', 'sleep', '600']);
      assert.equal(down.code, 0, down.stderr);
      const c = down.stdout.trim();
      await s.holderPids();
      const ws = (await s.api('GET', '/v1/workspaces/default')).body;
      assert.deepEqual(ws.sessions, [a, b, c]);
      assert.deepEqual(ws.layout.second, { type: 'split', direction: 'down', ratio: 0.5, first: leaf(b), second: leaf(c) });

      assert.equal((await s.cli(['kill', b])).code, 0);
      const collapsed = (await s.api('GET', '/v1/workspaces/default')).body;
      assert.deepEqual(collapsed.layout, { type: 'split', direction: 'right', ratio: 0.5, first: leaf(a), second: leaf(c) });
      assert.equal((await s.cli(['kill', a])).code, 0);
      assert.deepEqual((await s.api('GET', '/v1/workspaces')).body.map((w: { name: string; layout: unknown }) => [w.name, w.layout]), [['default', leaf(c)]]);
    }));

  test('PUT replaces a layout after validating it; bad trees, unknown sessions and shared sessions are refused', () =>
    withServer(async (s) => {
      const a = await s.newShell(['sleep', '600'], { prompt: /^/ });
      const b = await s.newShell(['sleep', '600'], { prompt: /^/ });
      const tree = { type: 'split', direction: 'down', ratio: 0.3, first: leaf(b), second: leaf(a) };
      const put = await s.api('PUT', '/v1/workspaces/dev', { layout: tree });
      assert.equal(put.status, 200);
      assert.deepEqual(put.body.sessions, [b, a]);
      assert.deepEqual((await s.api('GET', '/v1/workspaces/dev')).body.layout, tree);

      const badRatio = await s.api('PUT', '/v1/workspaces/dev', { layout: { ...tree, ratio: 1.5 } });
      assert.deepEqual([badRatio.status, badRatio.body.error.message], [400, 'layout.ratio must be a number from 0.05 to 0.95']);
      const unknown = await s.api('PUT', '/v1/workspaces/dev', { layout: leaf('zzzzzzzz') });
      assert.equal(unknown.status, 400);
      assert.match(unknown.body.error.message, /no session zzzzzzzz/);
      const shared = await s.api('PUT', '/v1/workspaces/other', { layout: leaf(a) });
      assert.equal(shared.status, 409);
      assert.match(shared.body.error.message, /already in workspace "dev"/);
      assert.equal((await s.api('PUT', '/v1/workspaces/dev', {})).status, 400);
      assert.equal((await s.api('PUT', '/v1/workspaces/bad%20name', { layout: null })).status, 400);
      const missing = await s.api('GET', '/v1/workspaces/nope');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body.error.candidates, ['dev']);

      const added = await s.api('POST', '/v1/workspaces/solo/sessions', { session: a });
      assert.equal(added.status, 409, 'a session is in one workspace at a time');
      assert.equal((await s.api('DELETE', '/v1/workspaces/dev')).status, 200);
      assert.deepEqual((await s.api('POST', '/v1/workspaces/solo/sessions', { session: a })).body.layout, leaf(a));
    }));

  test('split: bad direction, bad cwd and unknown targets are clear errors', () =>
    withServer(async (s) => {
      const a = await s.newShell(['sleep', '600'], { prompt: /^/ });
      assert.equal((await s.api('POST', `/v1/sessions/${a}/split`, { direction: 'left' })).status, 400);
      assert.equal((await s.api('POST', `/v1/sessions/${a}/split`, { cwd: 'relative/dir' })).status, 400);
      assert.equal((await s.api('POST', `/v1/sessions/${a}/split`, { ratio: 2 })).status, 400);
      const both = await s.cli(['split', a, '--right', '--down']);
      assert.equal(both.code, 2);
      const unknown = await s.cli(['split', ':ghost']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no session is named ":ghost"/);
      assert.equal((await s.api('GET', '/v1/sessions')).body.length, 1, 'no session was started by the refused splits');
    }));
});
