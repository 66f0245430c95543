// Memory of a running process, from /proc. RSS counts shared library pages
// once per process, so for a small process the private figure
// (smaps_rollup Private_Clean + Private_Dirty) is the honest per-process cost.

import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  rssKb: number;
  pssKb: number;
  privateKb: number;
}

function fieldKb(text: string, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  if (!m) throw new Error(`no ${name} in /proc memory file`);
  return Number(m[1]);
}

export function readRssKb(pid: number): number {
  return fieldKb(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
}

export function readProcessMemory(pid: number): ProcessMemory {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rssKb: fieldKb(text, 'Rss'),
    pssKb: fieldKb(text, 'Pss'),
    privateKb: fieldKb(text, 'Private_Clean') + fieldKb(text, 'Private_Dirty'),
  };
}
