// How long an agent is idle before it is put to sleep, when its launch does
// not say: TEND_AGENT_SLEEP_MINUTES, else `agentSleepMinutes` in
// $TEND_HOME/config.json, else 30 minutes. 0 means never. A value that is not
// a number of minutes is said in the log and the default used: a typo must
// not turn sleeping off (or make every agent sleep at once) unseen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_AGENT_SLEEP_AFTER_MS } from '../../protocol/api/agents.js';

export const AGENT_SLEEP_ENV = 'TEND_AGENT_SLEEP_MINUTES';
export const CONFIG_FILE_NAME = 'config.json';
/** A week: longer is surely a mistake (and past what a timer holds). */
const MAX_SLEEP_MINUTES = 7 * 24 * 60;
const MS_PER_MINUTE = 60_000;

function minutesToMs(minutes: number): number | null {
  return minutes === 0 ? null : Math.round(minutes * MS_PER_MINUTE);
}

function validMinutes(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_SLEEP_MINUTES;
}

/** The idle time before an agent sleeps (null: never), and the warnings to log about values that were not used. */
export function agentSleepAfterMs(env: NodeJS.ProcessEnv, homeDir: string): { ms: number | null; warnings: string[] } {
  const warnings: string[] = [];
  const fallback = DEFAULT_AGENT_SLEEP_AFTER_MS;
  const fromEnv = env[AGENT_SLEEP_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const minutes = /^\s*\d+(\.\d+)?\s*$/.test(fromEnv) ? Number(fromEnv) : NaN;
    if (validMinutes(minutes)) return { ms: minutesToMs(minutes), warnings };
    warnings.push(`${AGENT_SLEEP_ENV}=${JSON.stringify(fromEnv)} is not a number of minutes from 0 (never) to ${MAX_SLEEP_MINUTES}; agents sleep after the default ${fallback / MS_PER_MINUTE} minutes`);
    return { ms: fallback, warnings };
  }
  const file = join(homeDir, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`could not read ${file} (${(err as Error).message}); agents sleep after the default ${fallback / MS_PER_MINUTE} minutes`);
    return { ms: fallback, warnings };
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    warnings.push(`${file} is not valid JSON; agents sleep after the default ${fallback / MS_PER_MINUTE} minutes`);
    return { ms: fallback, warnings };
  }
  const minutes = config !== null && typeof config === 'object' ? (config as Record<string, unknown>).agentSleepMinutes : undefined;
  if (minutes === undefined) return { ms: fallback, warnings };
  if (validMinutes(minutes)) return { ms: minutesToMs(minutes), warnings };
  warnings.push(`"agentSleepMinutes" in ${file} is ${JSON.stringify(minutes)}, not a number of minutes from 0 (never) to ${MAX_SLEEP_MINUTES}; agents sleep after the default ${fallback / MS_PER_MINUTE} minutes`);
  return { ms: fallback, warnings };
}
