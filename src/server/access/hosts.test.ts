import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalHost, hostAllowed, isLoopbackAddress, parseHost, parseListenAddress } from './hosts.js';

test('a Host is a name, name:port, [v6] or [v6]:port; anything else is none', () => {
  assert.deepEqual(parseHost('Box.Example.ts.net'), { name: 'box.example.ts.net', port: null });
  assert.deepEqual(parseHost('box.example:8443'), { name: 'box.example', port: 8443 });
  assert.deepEqual(parseHost('[::1]:7788'), { name: '[::1]', port: 7788 });
  assert.deepEqual(parseHost('[fd7a:115c:a1e0::1]'), { name: '[fd7a:115c:a1e0::1]', port: null });
  for (const bad of ['', 'a b', 'box:', 'box:99999', 'box:0', 'evil.example/x', 'user@box', '-box', 'x'.repeat(300)]) assert.equal(parseHost(bad), null, bad);
});

test('an allowed name matches on any port; an allowed name:port only there; lookalikes never', () => {
  const allowed = ['box.example.ts.net', 'lan.example:8443'];
  assert.ok(hostAllowed('box.example.ts.net', allowed));
  assert.ok(hostAllowed('BOX.example.ts.net:443', allowed));
  assert.ok(hostAllowed('box.example.ts.net.', allowed), 'a trailing dot names the same host');
  assert.ok(hostAllowed('lan.example:8443', allowed));
  assert.ok(!hostAllowed('lan.example:8444', allowed));
  assert.ok(!hostAllowed('lan.example', allowed));
  assert.ok(!hostAllowed('box.example.ts.net.evil.example', allowed));
  assert.ok(!hostAllowed('evil-box.example.ts.net', allowed));
  assert.ok(!hostAllowed(undefined, allowed));
  assert.ok(!hostAllowed('box.example.ts.net', []));
  assert.equal(canonicalHost('Box.Example.:8443'), 'box.example:8443');
});

test('loopback is 127.0.0.0/8 and ::1 in the forms Node reports them', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::ffff:127.0.0.1', '::1', '[::1]']) assert.ok(isLoopbackAddress(a), a);
  for (const a of ['100.64.0.1', '10.0.0.1', '::ffff:10.0.0.1', 'fd7a:115c:a1e0::1', '1127.0.0.1', undefined]) assert.ok(!isLoopbackAddress(a), String(a));
});

test('a --listen address needs a port', () => {
  assert.deepEqual(parseListenAddress('0.0.0.0:8443'), { host: '0.0.0.0', port: 8443 });
  assert.deepEqual(parseListenAddress('[::]:8443'), { host: '::', port: 8443 });
  assert.equal(parseListenAddress('0.0.0.0'), null);
});
