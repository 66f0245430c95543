import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { existsSync } from 'node:fs';
import { endianness } from 'node:os';
import { spawnSync } from 'node:child_process';
import { loopbackPeerUid, peerLookupFor, procNetTcpAddress, uidOfLocalAddress, uidOfLsofSocket, type PeerLookup } from './peer-uid.js';

/** lsof is what macOS offers; where it is installed on Linux too, its path is tested here. */
const hasLsof = spawnSync('lsof', ['-v'], { stdio: 'ignore' }).error === undefined;

test('addresses are spelt as /proc/net/tcp prints them', { skip: endianness() !== 'LE' ? 'the spelling below is little-endian' : false }, () => {
  assert.equal(procNetTcpAddress('127.0.0.1', 7788), '0100007F:1E6C');
  assert.equal(procNetTcpAddress('10.1.2.3', 80), '0302010A:0050');
  assert.equal(procNetTcpAddress('not-an-ip', 80), null);
});

test('the uid is read from the row whose local address matches', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1E6C 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0',
    '   1: 0100007F:9C40 0100007F:1E6C 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0',
  ].join('\n');
  assert.equal(uidOfLocalAddress(table, '0100007F:9C40'), 1000);
  assert.equal(uidOfLocalAddress(table, '0100007F:1E6C'), 0);
  assert.equal(uidOfLocalAddress(table, '0100007F:0001'), null);
});

/** A real loopback connection from this process: its accepted end. */
async function acceptedSocket(t: import('node:test').TestContext): Promise<import('node:net').Socket> {
  const server = createServer();
  t.after(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const accepted = new Promise<import('node:net').Socket>((resolve) => server.once('connection', resolve));
  const client = connect(port, '127.0.0.1');
  t.after(() => client.destroy());
  const socket = await accepted;
  t.after(() => socket.destroy());
  return socket;
}

test('each platform gets the means it has; one with none gets none', () => {
  assert.equal(peerLookupFor('linux'), 'proc-net-tcp');
  assert.equal(peerLookupFor('darwin'), 'lsof');
  assert.equal(peerLookupFor('win32'), 'none');
  assert.equal(peerLookupFor('aix'), 'none');
});

test("lsof's field output: the uid of the process whose socket's local end matches", () => {
  // Two processes of different users; each socket is "LOCAL->REMOTE".
  const output = [
    'p100', 'u0', 'n127.0.0.1:7788->127.0.0.1:50001', 'n127.0.0.1:7788->127.0.0.1:50002',
    'p200', 'u501', 'n127.0.0.1:50001->127.0.0.1:7788',
    'p300', 'u502', 'n127.0.0.1:50002->127.0.0.1:7788', '',
  ].join('\n');
  assert.equal(uidOfLsofSocket(output, '127.0.0.1:50001'), 501);
  assert.equal(uidOfLsofSocket(output, '127.0.0.1:50002'), 502);
  assert.equal(uidOfLsofSocket(output, '127.0.0.1:7788'), 0);
  assert.equal(uidOfLsofSocket(output, '127.0.0.1:5000'), null, 'a prefix of a port is not the port');
  assert.equal(uidOfLsofSocket('', '127.0.0.1:50001'), null);
});

test('without a means to check, the answer is unknown, with the reason', () => {
  const peer = loopbackPeerUid('127.0.0.1', 50001, 'none');
  assert.equal(peer.known, false);
  assert.match(peer.known ? '' : peer.reason, new RegExp(`no way to find a TCP peer's user on ${process.platform}`));
});

const lookups: Array<[PeerLookup, string | false]> = [
  ['proc-net-tcp', existsSync('/proc/net/tcp') ? false : 'no /proc/net/tcp here'],
  ['lsof', hasLsof ? false : 'lsof is not installed here'],
];
for (const [lookup, skip] of lookups) {
  test(`${lookup}: a real loopback connection from this process is owned by this uid`, { skip }, async (t) => {
    const socket = await acceptedSocket(t);
    assert.deepEqual(loopbackPeerUid(socket.remoteAddress!, socket.remotePort!, lookup), { known: true, uid: process.getuid!() });
    // A port nobody holds: no owner, rather than a guess.
    assert.deepEqual(loopbackPeerUid('127.0.0.1', 1, lookup), { known: true, uid: null });
  });
}
