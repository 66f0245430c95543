// Input exactly once: pastes into a program that reads slowly and writes down
// every byte it reads. A paste is 16-byte records, `p00042.00000017` and a
// newline, so what arrived can be counted record by record: for a paste the
// server acknowledged (at once, or on a retry with the same key) every
// record must have arrived once; a paste that failed says in its error how
// much arrived, and a retry with the same key completes it without doubling.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FaultServer } from '../lib/fault-server.js';
import { runTend } from '../lib/run-tend.js';

export const RECORD_BYTES = 16;
const RECORD = /^p(\d{5})\.(\d{8})$/;
const CLI_TIMEOUT_MS = 120_000;

export type PasteWay = 'api' | 'cli';

export interface Paste {
  number: number;
  way: PasteWay;
  bytes: Buffer;
  /** The retry key: one per paste, the same on every try. */
  key: string;
  /** Answered with success (the first time or on a retry). */
  acknowledged: boolean;
  tries: number;
  /** What the last failure said, and the `arrived` count it gave, if any. */
  failure: string | null;
  reportedArrived: number | null;
}

export function makePaste(number: number, bytes: number, way: PasteWay): Paste {
  const records = Math.max(1, Math.floor(bytes / RECORD_BYTES));
  const parts: string[] = [];
  const tag = `p${String(number).padStart(5, '0')}.`;
  for (let i = 0; i < records; i++) parts.push(`${tag}${String(i).padStart(8, '0')}\n`);
  return { number, way, bytes: Buffer.from(parts.join(''), 'latin1'), key: randomBytes(16).toString('hex'), acknowledged: false, tries: 0, failure: null, reportedArrived: null };
}

function arrivedFrom(body: unknown): number | null {
  const error = (body as { error?: { arrived?: unknown } } | null)?.error;
  const arrived = error?.arrived ?? (body as { arrived?: unknown } | null)?.arrived;
  return typeof arrived === 'number' ? arrived : null;
}

/** One try through POST …/input (with the paste's key). */
async function tryApi(server: FaultServer, target: string, paste: Paste): Promise<void> {
  try {
    const res = await server.raw('POST', `/v1/sessions/${target}/input`, { base64: paste.bytes.toString('base64'), key: paste.key });
    if (res.status === 200) {
      paste.acknowledged = true;
      paste.failure = null;
      return;
    }
    paste.failure = `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
    paste.reportedArrived = arrivedFrom(res.body);
  } catch (err) {
    paste.failure = (err as Error).message;
  }
}

/** One try through `tend send TARGET --stdin --key KEY` (exit 0 is its acknowledgement; it rides through a restart by itself). */
async function tryCli(server: FaultServer, target: string, paste: Paste): Promise<void> {
  const { code, stderr } = await runTend(server.env, ['send', target, '--stdin', '--key', paste.key], { stdin: paste.bytes, timeoutMs: CLI_TIMEOUT_MS });
  if (code === 0) {
    paste.acknowledged = true;
    paste.failure = null;
    return;
  }
  paste.failure = `tend send exited ${code}: ${stderr.slice(0, 200)}`;
  const m = /(\d+) (?:of \d+ )?bytes?\b[^\n]*arrived|arrived[^\d\n]*(\d+)/.exec(stderr);
  paste.reportedArrived = m ? Number(m[1] ?? m[2]) : null;
}

/** Sends (or sends again) a paste; resolves when this try has an answer. */
export function sendPaste(server: FaultServer, target: string, paste: Paste): Promise<void> {
  paste.tries++;
  return paste.way === 'api' ? tryApi(server, target, paste) : tryCli(server, target, paste);
}

export interface PasteCount {
  pastes: number;
  acknowledged: number;
  failedAtLeastOnce: number;
  neverAcknowledged: number;
  /** Bytes of acknowledged pastes that never arrived. */
  lostBytes: number;
  /** Bytes that arrived more than once (the extra copies). */
  doubledBytes: number;
  /** Bytes of pastes never acknowledged that arrived anyway, and how many of those the failures reported. */
  unacknowledgedArrivedBytes: number;
  reportedArrivedBytes: number;
  /** Bytes that are no record: a record cut or mixed. */
  garbledBytes: number;
  failures: string[];
}

/** Counts, record by record, what reached the reader against what each paste's answer promised. */
export function countPastes(arrivedFile: string, pastes: readonly Paste[]): PasteCount {
  const text = readFileSync(arrivedFile, 'latin1');
  const seen = new Map<number, Uint16Array>();
  for (const p of pastes) seen.set(p.number, new Uint16Array(p.bytes.length / RECORD_BYTES));
  let garbledBytes = 0;
  const pieces = text.split('\n');
  const tail = pieces.pop() ?? '';
  garbledBytes += tail.length;
  for (const piece of pieces) {
    const m = RECORD.exec(piece);
    const counts = m ? seen.get(Number(m[1])) : undefined;
    const index = m ? Number(m[2]) : -1;
    if (!counts || index >= counts.length) {
      garbledBytes += piece.length + 1;
      continue;
    }
    counts[index]!++;
  }
  const count: PasteCount = {
    pastes: pastes.length, acknowledged: 0, failedAtLeastOnce: 0, neverAcknowledged: 0, lostBytes: 0, doubledBytes: 0,
    unacknowledgedArrivedBytes: 0, reportedArrivedBytes: 0, garbledBytes, failures: [],
  };
  for (const p of pastes) {
    const counts = seen.get(p.number)!;
    let arrivedRecords = 0;
    for (const c of counts) {
      if (c > 0) arrivedRecords++;
      if (c > 1) count.doubledBytes += (c - 1) * RECORD_BYTES;
    }
    if (p.tries > 1 || p.failure !== null) count.failedAtLeastOnce++;
    if (p.acknowledged) {
      count.acknowledged++;
      count.lostBytes += (counts.length - arrivedRecords) * RECORD_BYTES;
    } else {
      count.neverAcknowledged++;
      count.unacknowledgedArrivedBytes += arrivedRecords * RECORD_BYTES;
      if (p.reportedArrived !== null) count.reportedArrivedBytes += p.reportedArrived;
      if (p.failure) count.failures.push(`paste ${p.number} (${p.way}, ${p.bytes.length} bytes): ${p.failure}`);
    }
  }
  return count;
}
