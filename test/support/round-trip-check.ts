// The round trip every snapshot test makes: feed a screen, snapshot it, write
// the snapshot into a fresh screen as a viewer would, compare everything; then
// feed both the same continuation bytes and compare again, which shows that
// the state outside the cells (saved cursor, region, tabs, charsets, pen…)
// came back too.
import { Screen, type ScreenSnapshot } from '../../src/server/screen/screen.js';
import { diffTerminals, unrestorableState } from './terminal-diff.js';

export interface RoundTripOptions {
  cols?: number;
  rows?: number;
  scrollbackRows?: number;
  /** Snapshot only this many rows of scrollback (default all). */
  snapshotScrollbackRows?: number;
  /** Bytes fed to both screens after the restore. */
  continuation?: string;
  /** Serialize with snapshotAsync instead of snapshot. */
  sliced?: boolean;
}

export interface RoundTripResult {
  snapshot: ScreenSnapshot;
  /** Differences right after the restore. */
  restored: string[];
  /** Differences after both screens took the continuation. */
  continued: string[];
  /** Set when the original held state no restore can rebuild (see unrestorableState); the diffs are then moot. */
  unrestorable: string | undefined;
}

export async function roundTrip(input: string | Uint8Array, options: RoundTripOptions = {}): Promise<RoundTripResult> {
  const size = { cols: options.cols ?? 80, rows: options.rows ?? 24, scrollbackRows: options.scrollbackRows ?? 10_000 };
  const original = new Screen(size);
  let restoredScreen: Screen | undefined;
  try {
    original.write(input, { live: false });
    await original.flush();
    const snapshotOptions = options.snapshotScrollbackRows === undefined ? {} : { scrollbackRows: options.snapshotScrollbackRows };
    const unrestorable = unrestorableState(original.terminal);
    const snapshot = options.sliced === true ? await original.snapshotAsync(snapshotOptions) : original.snapshot(snapshotOptions);
    restoredScreen = Screen.fromSnapshot(snapshot, size);
    await restoredScreen.flush();
    const diffOptions = { scrollback: options.snapshotScrollbackRows === undefined };
    const restored = diffTerminals(original.terminal, restoredScreen.terminal, { ...diffOptions, titles: [original.title, restoredScreen.title] });
    let continued: string[] = [];
    if (options.continuation !== undefined) {
      original.write(options.continuation, { live: false });
      restoredScreen.write(options.continuation, { live: false });
      await Promise.all([original.flush(), restoredScreen.flush()]);
      continued = diffTerminals(original.terminal, restoredScreen.terminal, { ...diffOptions, titles: [original.title, restoredScreen.title] });
    }
    return { snapshot, restored, continued, unrestorable };
  } finally {
    original.dispose();
    restoredScreen?.dispose();
  }
}
