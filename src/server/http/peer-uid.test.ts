import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { existsSync } from 'node:fs';
import { endianness } from 'node:os';
import { loopbackPeerUid, procNetTcpAddress, uidOfLocalAddress } from './peer-uid.js';

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

test('a real loopback connection from this process is owned by this uid', { skip: existsSync('/proc/net/tcp') ? false : 'no /proc/net/tcp here' }, async (t) => {
  const server = createServer();
  t.after(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const accepted = new Promise<import('node:net').Socket>((resolve) => server.once('connection', resolve));
  const client = connect(port, '127.0.0.1');
  t.after(() => client.destroy());
  const socket = await accepted;
  t.after(() => socket.destroy());
  assert.deepEqual(loopbackPeerUid(socket.remoteAddress!, socket.remotePort!), { known: true, uid: process.getuid!() });
});
