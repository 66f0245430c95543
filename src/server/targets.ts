// How a person names a session: its id, a unique prefix of the id, `:name`,
// or its 1-based index in `tend ls`. Unknown and ambiguous targets are errors
// that list what would have matched.
import { ApiError } from './http/errors.js';

export interface Targetable {
  id: string;
  name: string | null;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

const describe = (s: Targetable) => (s.name ? `:${s.name} (${s.id})` : s.id);

export function resolveTarget<T extends Targetable>(target: string, sessions: readonly T[]): T {
  if (target === '') throw new ApiError('bad_target', 'an empty session target; give an id, :name or an index from `tend ls`');
  if (target.startsWith(':')) {
    const name = target.slice(1);
    const found = sessions.find((s) => s.name === name);
    if (found) return found;
    const close = sessions
      .filter((s) => s.name !== null && editDistance(s.name, name) <= Math.max(1, Math.floor(name.length / 3)))
      .map((s) => `:${s.name}`);
    throw new ApiError('no_session',
      `no session is named "${target}"${close.length ? ` (did you mean ${close.join(' or ')}?)` : ''}`,
      { candidates: close });
  }
  if (/^[0-9]+$/.test(target)) {
    const index = Number(target);
    const found = sessions[index - 1];
    if (index >= 1 && found) return found;
    throw new ApiError('no_session', `no session has index ${target}: \`tend ls\` lists ${sessions.length}`);
  }
  const exact = sessions.find((s) => s.id === target);
  if (exact) return exact;
  const prefixed = sessions.filter((s) => s.id.startsWith(target));
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1) {
    throw new ApiError('ambiguous_target', `"${target}" matches ${prefixed.length} sessions: ${prefixed.map(describe).join(', ')}`,
      { candidates: prefixed.map((s) => s.id) });
  }
  throw new ApiError('no_session', `no session matches "${target}"${sessions.length ? `; sessions: ${sessions.slice(0, 8).map(describe).join(', ')}` : ' (there are no sessions)'}`,
    { candidates: sessions.map((s) => s.id) });
}
