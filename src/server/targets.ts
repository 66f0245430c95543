// How a person names a session: its id, `:name`, its 1-based index in
// `tend ls`, its bare name, or a unique prefix of its id. Unknown and
// ambiguous targets are errors that list what would have matched, and a
// near miss of a name (case, two letters swapped, a letter off) is named in
// a "did you mean". These errors are the core's own; http/core-errors.ts
// gives each its API code.
import { nearest } from '../common/nearest.js';

export interface Targetable {
  id: string;
  name: string | null;
}

/** The target was empty. */
export class EmptyTargetError extends Error {
  override readonly name = 'EmptyTargetError';
}

/** No session matches the target; `candidates` are the targets it may have meant (`:name`s or ids). */
export class NoSuchSessionError extends Error {
  override readonly name = 'NoSuchSessionError';

  constructor(message: string, readonly candidates: readonly string[]) {
    super(message);
  }
}

/** The target is a prefix of several ids; `candidates` are those ids. */
export class AmbiguousTargetError extends Error {
  override readonly name = 'AmbiguousTargetError';

  constructor(message: string, readonly candidates: readonly string[]) {
    super(message);
  }
}

/** How many sessions an unknown target's message lists; `candidates` holds them all. */
const LISTED_SESSIONS = 8;

const describe = (s: Targetable) => (s.name ? `:${s.name} (${s.id})` : s.id);

/**
 * The session `target` names. In order: `:name`; a number is an index; an
 * exact id; a bare word that is a session's name (so `tend screen htop`
 * means `:htop`); a prefix of exactly one id. A name is tried before id
 * prefixes because a name stays put while ids come and go: with prefixes
 * first, `tend kill cafe` would kill the session named cafe until a session
 * whose random id starts with "cafe" came along, and that one after.
 */
export function resolveTarget<T extends Targetable>(target: string, sessions: readonly T[]): T {
  if (target === '') throw new EmptyTargetError('an empty session target; give an id, :name or an index from `tend ls`');
  if (target.startsWith(':')) {
    const name = target.slice(1);
    const found = sessions.find((s) => s.name === name);
    if (found) return found;
    const near = nearNames(name, sessions);
    throw new NoSuchSessionError(`no session is named "${target}"${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}`, near);
  }
  if (/^[0-9]+$/.test(target)) {
    const index = Number(target);
    const found = sessions[index - 1];
    if (index >= 1 && found) return found;
    throw new NoSuchSessionError(`no session has index ${target}: \`tend ls\` lists ${sessions.length}`, []);
  }
  const exact = sessions.find((s) => s.id === target) ?? sessions.find((s) => s.name === target);
  if (exact) return exact;
  const prefixed = sessions.filter((s) => s.id.startsWith(target));
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1) {
    throw new AmbiguousTargetError(`"${target}" matches ${prefixed.length} sessions: ${prefixed.map(describe).join(', ')}`,
      prefixed.map((s) => s.id));
  }
  const near = nearNames(target, sessions);
  if (near.length > 0) throw new NoSuchSessionError(`no session matches "${target}" (did you mean ${near.join(' or ')}?)`, near);
  const listed = sessions.length
    ? `; sessions: ${sessions.slice(0, LISTED_SESSIONS).map(describe).join(', ')}`
    : ' (there are no sessions)';
  throw new NoSuchSessionError(`no session matches "${target}"${listed}`, sessions.map((s) => s.id));
}

/** The `:name`s close to `word`, closest first (common/nearest.ts says how close). */
function nearNames(word: string, sessions: readonly Targetable[]): string[] {
  const names = sessions.flatMap((s) => (s.name === null ? [] : [s.name]));
  return nearest(word, names).map((name) => `:${name}`);
}
