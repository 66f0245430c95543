// The screen a sleeping agent is shown with: cut from the session's live
// screen when the agent falls asleep, opened as a screen of its own in the
// screen host (so viewers get snapshots and views of it as of any screen,
// and `tend screen` its text), and saved to a file so that a server started
// after a restart or a SIGKILL shows the same screen until the agent wakes.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ScreenSnapshot } from '../../protocol/api/index.js';
import type { HostedScreen, ScreenHost } from '../screen-host/index.js';

/** Rows of scrollback kept above the screen: what a viewer's first snapshot carries. */
export const KEPT_SCROLLBACK_ROWS = 1000;
const FILE_NAME = 'kept-screen.json';
const FORMAT_VERSION = 1;

interface KeptScreenFile {
  version: number;
  keptAt: number;
  snapshot: ScreenSnapshot;
}

/** Where a session's kept screen is saved: beside the agent's other files. */
export function keptScreenPath(agentsDir: string, sessionId: string): string {
  return join(agentsDir, sessionId, FILE_NAME);
}

/** The live screen as it is now (every byte written before the call), with its recent scrollback. */
export async function cutKeptScreen(live: HostedScreen, onCut?: () => void): Promise<ScreenSnapshot> {
  const { snapshot } = await live.snapshot({ scrollbackRows: KEPT_SCROLLBACK_ROWS }, onCut);
  return snapshot;
}

/** A screen of its own in the host, showing `snapshot`; no byte is written to it after. */
export async function openKeptScreen(screens: ScreenHost, snapshot: ScreenSnapshot): Promise<HostedScreen> {
  const { screen } = await screens.restore({
    options: { cols: snapshot.cols, rows: snapshot.rows, scrollbackRows: KEPT_SCROLLBACK_ROWS, liveScrollbackRows: KEPT_SCROLLBACK_ROWS },
    snapshot,
    archive: false,
    history: null,
    commands: null,
  });
  return screen;
}

/**
 * Writes the file whole or not at all (a temp file, fsync, rename, fsync of
 * the directory): a server killed mid-write finds the old file or the new.
 */
export async function saveKeptScreen(file: string, snapshot: ScreenSnapshot, now = Date.now()): Promise<void> {
  const dir = dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const body: KeptScreenFile = { version: FORMAT_VERSION, keptAt: now, snapshot };
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(body));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  const dirHandle = await fs.open(dir, 'r').catch(() => null);
  if (dirHandle !== null) {
    // Some file systems cannot fsync a directory; the rename happened all the same.
    await dirHandle.sync().catch(() => undefined);
    await dirHandle.close();
  }
}

/** The saved screen, or why there is none usable (missing, unreadable, not one of ours). */
export async function loadKeptScreen(file: string): Promise<{ ok: true; snapshot: ScreenSnapshot } | { ok: false; why: string }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    return { ok: false, why: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'its file is missing' : (err as Error).message };
  }
  try {
    const parsed = JSON.parse(text) as Partial<KeptScreenFile>;
    const s = parsed.snapshot;
    if (parsed.version !== FORMAT_VERSION || s === undefined || typeof s.data !== 'string' || !Number.isInteger(s.cols) || !Number.isInteger(s.rows) || s.cols < 1 || s.rows < 1) {
      return { ok: false, why: 'its file is not a kept screen tend can read' };
    }
    return { ok: true, snapshot: s };
  } catch {
    return { ok: false, why: 'its file is not valid JSON' };
  }
}

export async function removeKeptScreen(file: string): Promise<void> {
  await fs.rm(file, { force: true });
}
