// One-time links (`tend remote link`): https://HOST/login#t=TOKEN, good for
// 10 minutes and one exchange, for one Host. The token rides in the URL's
// fragment, which a browser never sends to a server, so it is in no proxy's
// or server's log; the login page's script reads it and posts it to
// POST /v1/remote/exchange. Only its sha256 is kept, in this server's memory
// (a link outlives no restart: make another), and every pending link's hash
// is compared in constant time, so a guess learns nothing from the time a
// refusal takes.
import type { Clock } from './clock.js';
import { LOGIN_LINK_TTL_MS } from '../../protocol/api/index.js';
import { hashToken, looksLikeToken, newToken, sameHash } from './tokens.js';

/** Links waiting to be used, at most; making one more drops the oldest. */
export const MAX_PENDING_LINKS = 64;

interface PendingLink {
  hash: string;
  host: string;
  expiresAt: number;
}

export type LinkExchange = { kind: 'ok'; host: string } | { kind: 'refused'; why: string };

export class LoginLinks {
  private pending: PendingLink[] = [];
  /** Hashes of links used or expired lately, so a replay is told apart from a guess. */
  private spent: Array<{ hash: string; why: string; at: number }> = [];

  constructor(private readonly now: Clock) {}

  /** Makes a link's token for this host; the token is returned once and kept only hashed. */
  create(host: string): { token: string; expiresAt: number } {
    this.prune();
    const token = newToken();
    const expiresAt = this.now() + LOGIN_LINK_TTL_MS;
    this.pending.push({ hash: hashToken(token), host, expiresAt });
    if (this.pending.length > MAX_PENDING_LINKS) this.pending.shift();
    return { token, expiresAt };
  }

  /** Uses a link's token at this host: once, within its 10 minutes. */
  exchange(token: string, host: string | null): LinkExchange {
    this.prune();
    if (!looksLikeToken(token)) return { kind: 'refused', why: 'that is not a login link token' };
    const hash = hashToken(token);
    let found: PendingLink | undefined;
    for (const link of this.pending) if (sameHash(link.hash, hash)) found = link;
    if (found === undefined) {
      const spent = this.spent.find((s) => sameHash(s.hash, hash));
      return { kind: 'refused', why: spent?.why ?? 'no such login link: it was never made here (make one with `tend remote link` on the machine)' };
    }
    if (host === null || found.host !== host) return { kind: 'refused', why: `this login link is for ${found.host}, not this host` };
    this.pending = this.pending.filter((l) => l !== found);
    this.remember(found.hash, 'this login link was used already: each link signs in once (make another with `tend remote link`)');
    return { kind: 'ok', host: found.host };
  }

  get pendingCount(): number {
    this.prune();
    return this.pending.length;
  }

  private prune(): void {
    const now = this.now();
    for (const link of this.pending) if (link.expiresAt <= now) this.remember(link.hash, 'this login link has expired (links last 10 minutes): make another with `tend remote link`');
    this.pending = this.pending.filter((l) => l.expiresAt > now);
    // What is remembered of spent links goes after a day: past that a replay reads as a guess.
    this.spent = this.spent.filter((s) => now - s.at < 24 * 60 * 60 * 1000).slice(-MAX_PENDING_LINKS * 4);
  }

  private remember(hash: string, why: string): void {
    this.spent.push({ hash, why, at: this.now() });
  }
}
