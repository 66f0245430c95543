// A process's resident memory and open file descriptors, from /proc, and the
// least-squares slope of a series of samples: "flat" is a slope near zero.

import { readFileSync, readdirSync } from 'node:fs';

export interface ProcSample {
  atMs: number;
  rssKb: number;
  fds: number;
}

export function sampleProcess(pid: number): ProcSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return { atMs: Date.now(), rssKb: rss ? Number(rss[1]) : 0, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** The slope of y against x by least squares (0 for fewer than two points). */
export function leastSquaresSlope(points: ReadonlyArray<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}
