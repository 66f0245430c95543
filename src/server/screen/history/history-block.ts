// One sealed block of history rows: the unit the history keeps, drops under
// its budget, writes to the history file and restores. Apart from history.ts
// so that what builds blocks (lost-rows.ts) need not import the history itself.
import type { LinkData } from '../xterm-private.js';

export interface HistoryBlock {
  /** Server-wide order of sealing: the budget drops the lowest first. */
  readonly serial: number;
  readonly firstRow: number;
  readonly rows: number;
  /** The rows' encodings, back to back. */
  readonly data: Uint8Array;
  /** Where each row starts in data. */
  readonly starts: Uint32Array;
  readonly links: readonly LinkData[];
}
