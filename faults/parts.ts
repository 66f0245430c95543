// Every part of the fault suite, in the order a full run takes them.
import type { Part } from './lib/part.js';
import { crashPart } from './crash/crash-loop.js';
import { diskPart } from './disk/disk-part.js';
import { fuzzPart } from './fuzz-part.js';
import { hostilePart } from './hostile/hostile-part.js';
import { soakPart } from './soak/soak-part.js';

export const PARTS: readonly Part[] = [crashPart, diskPart, soakPart, hostilePart, fuzzPart];
