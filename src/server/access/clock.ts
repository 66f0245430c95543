// The access gate's clock: links expire after 10 minutes and cookies after
// 30 days, and a test cannot wait that long. TEND_TEST_CLOCK_FILE names a
// file holding milliseconds to add to the wall clock, read on every use, so a
// test moves time forward on a running server by writing a number; without
// the variable the clock is Date.now and nothing is read.
import { readFileSync } from 'node:fs';

export type Clock = () => number;

export const TEST_CLOCK_ENV = 'TEND_TEST_CLOCK_FILE';

export function accessClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const file = env[TEST_CLOCK_ENV];
  if (file === undefined || file === '') return Date.now;
  return () => Date.now() + skewMs(file);
}

function skewMs(file: string): number {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : 0;
  } catch {
    return 0;
  }
}
