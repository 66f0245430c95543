// Damage to one file: a flipped bit, or the file cut to half its size.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import type { Chooser } from '../lib/random.js';

export type Damage = 'flipped bit' | 'truncated';

/** Damages `file`; returns what was done, for the report. */
export function damageFile(file: string, damage: Damage, choose: Chooser): string {
  const bytes = readFileSync(file);
  if (damage === 'truncated') {
    truncateSync(file, Math.floor(bytes.length / 2));
    return `cut from ${bytes.length} to ${Math.floor(bytes.length / 2)} bytes`;
  }
  // A bit in the middle half: past headers a reader checks first, in the data itself.
  const at = choose.int(Math.floor(bytes.length / 4), Math.floor((bytes.length * 3) / 4));
  const bit = choose.int(0, 7);
  bytes[at] = bytes[at]! ^ (1 << bit);
  writeFileSync(file, bytes);
  return `bit ${bit} of byte ${at} of ${bytes.length} flipped`;
}
