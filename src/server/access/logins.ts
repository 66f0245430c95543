// Signed-in browsers: one record per login cookie in TEND_HOME/remote/logins.json
// (0600), holding the sha256 of the cookie's token (never the token), the Host
// it was issued for, how the browser signed in, and when it was made and last
// used. A cookie is good for 30 days at the host it was issued for, until
// `tend remote revoke`. The cookie's value is "ID.TOKEN": the id finds the
// record, the token's hash is compared in constant time. A damaged file is
// logged and read as no logins: everyone signs in again, nobody gets in.
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';
import { LOGIN_COOKIE_TTL_MS, type LoginMethod, type LoginView } from '../../protocol/api/index.js';
import { remoteDir } from './settings.js';
import { hashToken, looksLikeToken, newLoginId, newToken, sameHash } from './tokens.js';
import { readPrivateJson, writePrivateJson } from './private-file.js';

export const LOGINS_FILE = 'logins.json';
/** Signed-in browsers kept at most; past it the one least recently used is signed out. */
export const MAX_LOGINS = 200;
/** last-used is saved at most this often per login: a page's every request must not write the file. */
const LAST_USED_SAVE_INTERVAL_MS = 10 * 60 * 1000;
const MAX_USER_AGENT_CHARS = 200;
const ID_PATTERN = /^[0-9a-f]{12}$/;

interface LoginRecord extends LoginView {
  hash: string;
}

export type CookieCheck =
  | { kind: 'valid'; login: LoginView }
  /** A cookie that lets nobody in; why is for the log and the caller, with no secret in it. */
  | { kind: 'invalid'; why: string };

export interface LoginStoreOptions {
  home: string;
  log: Logger;
  now: Clock;
}

export class LoginStore {
  private records: LoginRecord[] = [];
  private readonly file: string;
  private readonly savedLastUsed = new Map<string, number>();

  constructor(private readonly options: LoginStoreOptions) {
    this.file = join(remoteDir(options.home), LOGINS_FILE);
    this.load();
  }

  private load(): void {
    try {
      const raw = readPrivateJson(this.file);
      const list = raw === null ? [] : (raw as { logins?: unknown }).logins;
      if (!Array.isArray(list)) throw new Error('it holds no "logins" list');
      this.records = list.filter(isRecord);
      if (this.records.length !== list.length) this.options.log.warn(`remote access: ${list.length - this.records.length} unreadable login records in ${this.file} dropped`);
    } catch (err) {
      this.records = [];
      this.options.log.warn(`remote access: ${(err as Error).message}; every browser must sign in again`);
    }
  }

  private save(): void {
    const now = this.options.now();
    this.records = this.records.filter((r) => r.expiresAt > now);
    writePrivateJson(this.file, { logins: this.records });
  }

  /** Makes a login and returns the cookie's value (ID.TOKEN), which is nowhere else. */
  issue(params: { host: string; method: LoginMethod; login: string | null; userAgent: string | undefined }): { cookie: string; login: LoginView } {
    const now = this.options.now();
    const token = newToken();
    const record: LoginRecord = {
      id: newLoginId(),
      hash: hashToken(token),
      host: params.host,
      method: params.method,
      login: params.login,
      userAgent: params.userAgent === undefined ? null : params.userAgent.slice(0, MAX_USER_AGENT_CHARS),
      createdAt: now,
      lastUsedAt: now,
      expiresAt: now + LOGIN_COOKIE_TTL_MS,
    };
    this.records.push(record);
    if (this.records.length > MAX_LOGINS) {
      this.records.sort((a, b) => b.lastUsedAt - a.lastUsedAt);
      this.records.length = MAX_LOGINS;
    }
    this.save();
    return { cookie: `${record.id}.${token}`, login: view(record) };
  }

  /** Whether a cookie's value lets a browser in at this host. */
  check(cookie: string, host: string | null): CookieCheck {
    const dot = cookie.indexOf('.');
    const id = cookie.slice(0, dot);
    const token = cookie.slice(dot + 1);
    if (dot === -1 || !ID_PATTERN.test(id) || !looksLikeToken(token)) return { kind: 'invalid', why: 'the login cookie is malformed' };
    const record = this.records.find((r) => r.id === id);
    // The hash is compared even for an unknown id, so a miss takes as long as a wrong token.
    const matches = sameHash(record?.hash ?? hashToken(''), hashToken(token));
    if (record === undefined || !matches) return { kind: 'invalid', why: 'the login cookie is not one this server issued, or it was revoked' };
    const now = this.options.now();
    if (record.expiresAt <= now) return { kind: 'invalid', why: 'the login cookie has expired (30 days)' };
    if (host === null || record.host !== host) return { kind: 'invalid', why: `the login cookie was issued for another host (${record.host})` };
    record.lastUsedAt = now;
    if (now - (this.savedLastUsed.get(id) ?? record.createdAt) >= LAST_USED_SAVE_INTERVAL_MS) {
      this.savedLastUsed.set(id, now);
      this.trySave();
    }
    return { kind: 'valid', login: view(record) };
  }

  private trySave(): void {
    try {
      this.save();
    } catch (err) {
      this.options.log.warn(`remote access: could not save ${this.file}: ${(err as Error).message}`);
    }
  }

  list(): LoginView[] {
    const now = this.options.now();
    return this.records.filter((r) => r.expiresAt > now).map(view);
  }

  get count(): number {
    return this.list().length;
  }

  /** Revokes one login by id, or every one ("all"); the number revoked. */
  revoke(id: string): number {
    const before = this.records.length;
    this.records = id === 'all' ? [] : this.records.filter((r) => r.id !== id);
    const revoked = before - this.records.length;
    if (revoked > 0) this.save();
    return revoked;
  }
}

function view(r: LoginRecord): LoginView {
  return { id: r.id, host: r.host, method: r.method, login: r.login, userAgent: r.userAgent, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, expiresAt: r.expiresAt };
}

function isRecord(value: unknown): value is LoginRecord {
  const r = value as Partial<LoginRecord> | null;
  return (
    typeof r === 'object' && r !== null &&
    typeof r.id === 'string' && ID_PATTERN.test(r.id) &&
    typeof r.hash === 'string' && /^[0-9a-f]{64}$/.test(r.hash) &&
    typeof r.host === 'string' &&
    (r.method === 'link' || r.method === 'tailscale' || r.method === 'cloudflare') &&
    (r.login === null || typeof r.login === 'string') &&
    (r.userAgent === null || typeof r.userAgent === 'string') &&
    typeof r.createdAt === 'number' && typeof r.lastUsedAt === 'number' && typeof r.expiresAt === 'number'
  );
}
