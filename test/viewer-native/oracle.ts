// The C oracles of these tests (viewer/test/oracle_*.c, built by
// viewer/Makefile): each a process that reads one request a line and writes
// one answer line for each, in order, with bytes as hex ("-" for none).
// A test holds every answer against what the TypeScript gives for the same
// request.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The checkout: this file runs as dist/test/viewer-native/oracle.js. */
const ROOT = join(import.meta.dirname, '..', '..', '..');
/** Every answer of one batch comes back in one read of the oracle's output. */
const ORACLE_OUTPUT_MAX_BYTES = 512 * 1024 * 1024;
/** How much of a request and its answers a failure shows. */
const SHOWN_REQUEST_CHARS = 300;
const SHOWN_ANSWER_CHARS = 600;

/** The oracles viewer/Makefile builds, by the names of their binaries in viewer/build/test/. */
export type OracleName = 'oracle-frames' | 'oracle-paint' | 'oracle-overlays';

const built = new Set<OracleName>();

/** Builds the oracle once a run, through make (which knows when the C is stale). */
function build(name: OracleName): string {
  if (!built.has(name)) {
    execFileSync('make', ['-s', '-C', join(ROOT, 'viewer'), `build/test/${name}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    built.add(name);
  }
  return join(ROOT, 'viewer', 'build', 'test', name);
}

/** Asks the oracle every request in one run of it; its answer lines, one a request, in order. */
export function askOracle(name: OracleName, requests: string[]): string[] {
  const r = spawnSync(build(name), [], { input: requests.map((request) => `${request}\n`).join(''), maxBuffer: ORACLE_OUTPUT_MAX_BYTES });
  assert.equal(r.status, 0, `the oracle failed: ${r.error?.message ?? r.stderr.toString()}`);
  const answers = r.stdout.toString().split('\n');
  assert.equal(answers.pop(), '', 'the oracle ends each answer with a newline');
  assert.equal(answers.length, requests.length, 'one answer a request');
  return answers;
}

/** Asks every request and compares each answer with what the TypeScript gives, naming the first few that differ. */
export function assertSameAnswers(name: OracleName, cases: Array<{ request: string; want: string }>): void {
  const answers = askOracle(name, cases.map((c) => c.request));
  const differ = cases
    .map((c, i) => ({ ...c, got: answers[i]! }))
    .filter((c) => c.got !== c.want)
    .slice(0, 3)
    .map((c) => `request: ${c.request.slice(0, SHOWN_REQUEST_CHARS)}\n    C: ${c.got.slice(0, SHOWN_ANSWER_CHARS)}\n   TS: ${c.want.slice(0, SHOWN_ANSWER_CHARS)}`);
  assert.deepEqual(differ, [], `${differ.length} of ${cases.length} answers differ`);
}

/** Bytes (a string as UTF-8) as an oracle reads them: hex, "-" for none. */
export function hexOrDash(bytes: Uint8Array | string): string {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.length === 0 ? '-' : b.toString('hex');
}
