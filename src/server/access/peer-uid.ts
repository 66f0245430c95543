// Who is on the other end of a loopback TCP connection, by the means the
// system offers:
//   * Linux: every TCP socket of this network namespace is a row of
//     /proc/net/tcp with the uid that owns it; the peer's socket is the row
//     whose *local* address is the accepted socket's *remote* one.
//   * macOS: no such table, but lsof (shipped with the system) lists the
//     sockets of the processes this user may inspect, with their owner; the
//     peer's is the one whose local end is the accepted socket's remote end.
//     A socket of another user's process is invisible to a user who is not
//     root, so that caller is "not found", which the listener refuses too.
//   * anywhere else the answer is "unknown", and the listener refuses.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { endianness } from 'node:os';

const PROC_NET_TCP = '/proc/net/tcp';
/** macOS ships lsof in /usr/sbin, which a server started from a script may not have on its PATH. */
const LSOF_PROGRAMS = ['/usr/sbin/lsof', '/usr/bin/lsof', 'lsof'];
/** lsof answers in tens of milliseconds; past this the caller is refused rather than the server held up. */
const LSOF_TIMEOUT_MS = 3000;

/** How the peer's user is found: the table Linux keeps, lsof, or not at all. */
export type PeerLookup = 'proc-net-tcp' | 'lsof' | 'none';

export type PeerUid = { known: true; uid: number | null } | { known: false; reason: string };

/** The means this platform offers (a platform not named here cannot check, and callers are refused). */
export function peerLookupFor(platform: NodeJS.Platform): PeerLookup {
  if (platform === 'linux') return 'proc-net-tcp';
  if (platform === 'darwin') return 'lsof';
  return 'none';
}

/** The row key for an IPv4 address and port, as /proc/net/tcp prints it ("0100007F:1E6C"). */
export function procNetTcpAddress(ipv4: string, port: number): string | null {
  const parts = ipv4.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  // The kernel prints the network-order address as one 32-bit word in host
  // byte order (on little-endian machines the octets come out reversed).
  const octets = endianness() === 'LE' ? [...parts].reverse() : parts;
  const word = octets
    .map((p) => p.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
  return `${word}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Finds the uid owning the socket bound at `local` in a /proc/net/tcp table's text. */
export function uidOfLocalAddress(table: string, local: string): number | null {
  for (const line of table.split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8 || fields[1] !== local) continue;
    const uid = Number(fields[7]);
    return Number.isInteger(uid) ? uid : null;
  }
  return null;
}

/**
 * Finds the uid of the process holding the socket whose local end is `local`
 * ("127.0.0.1:54321") in lsof's field output (-F pun): a `p` line starts
 * each process, `u` gives its uid, each `n` names a socket "LOCAL->REMOTE".
 */
export function uidOfLsofSocket(output: string, local: string): number | null {
  let uid: number | null = null;
  for (const line of output.split('\n')) {
    const value = line.slice(1);
    if (line.startsWith('p')) uid = null;
    else if (line.startsWith('u')) uid = /^\d+$/.test(value) ? Number(value) : null;
    else if (line.startsWith('n') && value.startsWith(`${local}->`)) return uid;
  }
  return null;
}

function procNetTcpPeerUid(address: string, port: number): PeerUid {
  const local = procNetTcpAddress(address, port);
  if (local === null) return { known: true, uid: null };
  let table: string;
  try {
    table = readFileSync(PROC_NET_TCP, 'utf8');
  } catch (err) {
    return { known: false, reason: `${PROC_NET_TCP} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  return { known: true, uid: uidOfLocalAddress(table, local) };
}

function lsofPeerUid(address: string, port: number): PeerUid {
  const args = ['-n', '-P', '-w', `-iTCP@${address}:${port}`, '-sTCP:ESTABLISHED', '-F', 'pun'];
  for (const program of LSOF_PROGRAMS) {
    const run = spawnSync(program, args, { encoding: 'utf8', timeout: LSOF_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });
    const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') continue;
    if (run.error) return { known: false, reason: `lsof failed (${code ?? run.error.message})` };
    // lsof exits 1 when nothing matched: the peer is gone, or not this user's to see.
    return { known: true, uid: uidOfLsofSocket(run.stdout, `${address}:${port}`) };
  }
  return { known: false, reason: 'lsof, which this check needs here, is not installed' };
}

/**
 * The uid of the process that owns the peer socket at `remoteAddress:remotePort`,
 * null when none is found (the peer already closed, or lsof may not see it),
 * or unknown when `lookup` cannot run on this system.
 */
export function loopbackPeerUid(remoteAddress: string, remotePort: number, lookup: PeerLookup = peerLookupFor(process.platform)): PeerUid {
  const address = remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
  switch (lookup) {
    case 'proc-net-tcp':
      return procNetTcpPeerUid(address, remotePort);
    case 'lsof':
      return lsofPeerUid(address, remotePort);
    case 'none':
      return { known: false, reason: `there is no way to find a TCP peer's user on ${process.platform}` };
  }
}
