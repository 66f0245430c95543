import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginLinks, MAX_PENDING_LINKS } from './links.js';
import { LOGIN_LINK_TTL_MS } from '../../protocol/api/index.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, move: (ms: number) => (now += ms) };
}

test('a link signs in once, at its host, within its 10 minutes', () => {
  const c = clock();
  const links = new LoginLinks(c.now);
  const { token } = links.create('box.example');
  assert.deepEqual(links.exchange(token, 'other.example'), { kind: 'refused', why: 'this login link is for box.example, not this host' });
  assert.deepEqual(links.exchange(token, 'box.example'), { kind: 'ok', host: 'box.example' });
  const again = links.exchange(token, 'box.example');
  assert.equal(again.kind, 'refused');
  assert.match((again as { why: string }).why, /used already/);
  const late = links.create('box.example');
  c.move(LOGIN_LINK_TTL_MS);
  assert.match((links.exchange(late.token, 'box.example') as { why: string }).why, /expired/);
  assert.match((links.exchange('A'.repeat(43), 'box.example') as { why: string }).why, /never made here/);
  assert.equal(links.pendingCount, 0);
});

test('pending links are bounded: the oldest goes first', () => {
  const links = new LoginLinks(clock().now);
  const first = links.create('box.example');
  for (let i = 0; i < MAX_PENDING_LINKS; i++) links.create('box.example');
  assert.equal(links.pendingCount, MAX_PENDING_LINKS);
  assert.equal(links.exchange(first.token, 'box.example').kind, 'refused');
});
