// What `tend agent KIND` and `tend new --agent KIND` ask the server for: the
// `agent` of POST /v1/sessions, its words checked here first, so a mistake
// is named by what was typed and no session is started for it.
import { nearest } from '../../common/nearest.js';
import { usageError, type CliError } from '../cli-error.js';
import { AGENT_KINDS, isAgentKind, type AgentKind, type AgentLaunchRequest } from '../../protocol/api/index.js';

/** The longest --sleep-after the server takes: a day (longer is "never": 0). */
const MAX_SLEEP_AFTER_MS = 24 * 60 * 60 * 1000;
const MS_PER_UNIT: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** `--agent KIND`, with the nearest names when it is none. */
export function readAgentKind(option: string, word: string): AgentKind {
  if (isAgentKind(word)) return word;
  throw unknownWord(word, AGENT_KINDS, (suggestion) => `${option} "${word}" is no agent tend knows${suggestion}; it takes ${listed(AGENT_KINDS)}`);
}

/** `tend agent WORD` with a word that is neither an agent nor one of the verb's `actions`. */
export function unknownAgentOrAction(word: string, actions: readonly string[]): CliError {
  const known = [...AGENT_KINDS, ...actions];
  return unknownWord(word, known, (suggestion) => `no agent or action "${word}"${suggestion}; tend agent takes ${listed(known)}`);
}

function unknownWord(word: string, known: readonly string[], message: (suggestion: string) => string): CliError {
  const close = nearest(word, known);
  const suggestion = close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
  return usageError(message(suggestion), close.length > 0 ? { candidates: close } : {});
}

/** "a, b or c". */
export function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/**
 * `--sleep-after 10m`: how long the agent may stay idle before tend puts it
 * to sleep, as seconds, minutes or hours (`90s`, `10m`, `2h`; a bare number
 * is minutes, as TEND_AGENT_SLEEP_MINUTES counts); 0 is never.
 */
export function parseSleepAfter(option: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text.trim());
  const ms = m ? Math.round(Number(m[1]) * MS_PER_UNIT[m[2] || 'm']!) : NaN;
  if (!Number.isFinite(ms) || ms > MAX_SLEEP_AFTER_MS) {
    throw usageError(`${option} takes a time like 90s, 10m or 2h (a bare number is minutes; 0: never sleep; at most 24h), not "${text}"`);
  }
  return ms;
}

/** The request's `agent`: the agent's own arguments (after `--`) passed on as they are. */
export function agentLaunchRequest(kind: AgentKind, args: readonly string[] | null, sleepAfterMs: number | undefined): AgentLaunchRequest {
  return {
    kind,
    ...(args !== null && args.length > 0 ? { args: [...args] } : {}),
    ...(sleepAfterMs !== undefined ? { sleepAfterMs } : {}),
  };
}
