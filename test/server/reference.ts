// The reference a recovered screen is held against: a fresh headless xterm fed
// exactly the bytes the program sent, up to the offset the server says its
// screen covers.
import { readFileSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import type { ScreenSnapshot } from '../../src/server/screen/index.js';
import { diffTerminals } from '../support/terminal-diff.js';
import { terminalFromSnapshot } from '../support/terminal-from-snapshot.js';
import type { TestServer } from './harness.js';

const { Terminal } = xtermHeadless;

export async function referenceTerminal(file: string, offset: number, cols: number, rows: number, scrollback: number) {
  const bytes = readFileSync(file);
  if (bytes.length < offset) throw new Error(`reference file has ${bytes.length} bytes, fewer than the server's offset ${offset}`);
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes.subarray(0, offset), resolve));
  return term;
}

export interface ServerScreen extends ScreenSnapshot {
  offset: number;
  degraded: boolean;
  status: string;
}

export async function serverScreen(t: TestServer, target: string, scrollback: number): Promise<ServerScreen> {
  const res = await t.api<ServerScreen>('GET', `/v1/sessions/${encodeURIComponent(target)}/screen?format=snapshot&scrollback=${scrollback}`);
  if (res.status !== 200) throw new Error(`screen: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Differences between the server's screen of `target` and the reference; [] when equal. */
export async function diffAgainstReference(t: TestServer, target: string, file: string, scrollback: number): Promise<{ diffs: string[]; offset: number }> {
  const snap = await serverScreen(t, target, scrollback);
  const restored = await terminalFromSnapshot(snap);
  const reference = await referenceTerminal(file, snap.offset, snap.cols, snap.rows, scrollback);
  const diffs = diffTerminals(reference, restored);
  restored.dispose();
  reference.dispose();
  return { diffs, offset: snap.offset };
}
