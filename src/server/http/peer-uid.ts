// Who is on the other end of a loopback TCP connection. On Linux every TCP
// socket of this network namespace is a row of /proc/net/tcp with the uid
// that owns it: the peer's socket is the row whose *local* address is the
// accepted socket's *remote* one. Elsewhere there is no such table, and the
// answer is "unknown".
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

const PROC_NET_TCP = '/proc/net/tcp';

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

export type PeerUid = { known: true; uid: number | null } | { known: false; reason: string };

/**
 * The uid of the process that owns the peer socket at `remoteAddress:remotePort`,
 * null when no row matches (the peer already closed), or unknown when this
 * system has no /proc/net/tcp to read.
 */
export function loopbackPeerUid(remoteAddress: string, remotePort: number): PeerUid {
  const address = remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
  const local = procNetTcpAddress(address, remotePort);
  if (local === null) return { known: true, uid: null };
  let table: string;
  try {
    table = readFileSync(PROC_NET_TCP, 'utf8');
  } catch (err) {
    return { known: false, reason: `${PROC_NET_TCP} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  return { known: true, uid: uidOfLocalAddress(table, local) };
}
