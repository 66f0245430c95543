// The remote-access settings: TEND_HOME/remote/settings.json (mode 0600 in a
// 0700 directory), read when the server starts and written only through the
// API by a local caller (`tend remote ...`), which re-reads nothing by hand:
// the store holds what it last wrote. A missing file is remote off; a damaged
// one is remote off too, with a log line and the problem in `tend remote
// status`, so a half-written or hand-broken file can never open the gate.
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { CloudflareSettings, RemoteSettings } from './identity.js';
import { REMOTE_LIMITS, type RemoteSettingsPatch } from '../../protocol/api/index.js';
import { parseHost, parseListenAddress } from './hosts.js';
import { readPrivateJson, writePrivateJson } from './private-file.js';

export const REMOTE_DIR = 'remote';
export const SETTINGS_FILE = 'settings.json';

export function remoteDir(home: string): string {
  return join(home, REMOTE_DIR);
}

export function defaultRemoteSettings(): RemoteSettings {
  return { enabled: false, listen: [], allowedHosts: [], tailscaleLogins: [], cloudflare: null };
}

/** A settings value that breaks a rule; the message names the field and the rule. */
export class SettingsError extends Error {}

type Fields = Record<string, unknown>;

function stringList(value: unknown, field: string, max: number, check: (s: string) => string | null): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new SettingsError(`"${field}" must be an array of strings`);
  if (value.length > max) throw new SettingsError(`"${field}" has more than ${max} entries`);
  const out: string[] = [];
  for (const raw of value as string[]) {
    const item = raw.trim();
    if (item.length === 0 || item.length > REMOTE_LIMITS.maxItemChars) throw new SettingsError(`an entry of "${field}" is empty or longer than ${REMOTE_LIMITS.maxItemChars} characters`);
    const problem = check(item);
    if (problem !== null) throw new SettingsError(`"${field}": ${JSON.stringify(item)} ${problem}`);
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

const hostRule = (s: string) => (parseHost(s) === null ? 'is not a host name, or name:port' : null);
const listenRule = (s: string) => (parseListenAddress(s) === null ? 'is not an address and port (HOST:PORT)' : null);
const loginRule = (s: string) => (/^[^\s@]+@[^\s@]+$/.test(s) || /^[^\s]+@github$/.test(s) ? null : 'is not a login (name@domain)');

function cloudflare(value: unknown): CloudflareSettings | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new SettingsError('"cloudflare" must be null or { issuer, audience, emails }');
  const v = value as Fields;
  if (typeof v.issuer !== 'string' || !/^https:\/\/[a-z0-9.-]+(:\d+)?\/?$/i.test(v.issuer)) {
    throw new SettingsError('"cloudflare.issuer" must be the team\'s https URL, e.g. https://myteam.cloudflareaccess.com');
  }
  if (typeof v.audience !== 'string' || v.audience.trim() === '' || v.audience.length > 256) throw new SettingsError('"cloudflare.audience" must be the application\'s AUD tag');
  const emails = stringList(v.emails ?? [], 'cloudflare.emails', REMOTE_LIMITS.maxLogins, (s) => (/^[^\s@]+@[^\s@]+$/.test(s) ? null : 'is not an email address'));
  if (emails.length === 0) throw new SettingsError('"cloudflare.emails" must name at least one email let in');
  return { issuer: v.issuer.replace(/\/$/, ''), audience: v.audience.trim(), emails: emails.map((e) => e.toLowerCase()) };
}

/**
 * Applies a change to settings, checking each field given: the result, or a
 * SettingsError naming the first field that breaks a rule. Unknown fields are
 * refused, so a typo never passes for a change.
 */
export function applySettingsPatch(base: RemoteSettings, patch: Fields): RemoteSettings {
  const known = ['enabled', 'listen', 'allowedHosts', 'tailscaleLogins', 'cloudflare'];
  const unknown = Object.keys(patch).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new SettingsError(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the settings are ${known.join(', ')}`);
  const next: RemoteSettings = { ...base };
  if ('enabled' in patch) {
    if (typeof patch.enabled !== 'boolean') throw new SettingsError('"enabled" must be true or false');
    next.enabled = patch.enabled;
  }
  if ('listen' in patch) next.listen = stringList(patch.listen, 'listen', REMOTE_LIMITS.maxListen, listenRule);
  if ('allowedHosts' in patch) next.allowedHosts = stringList(patch.allowedHosts, 'allowedHosts', REMOTE_LIMITS.maxHosts, hostRule).map((h) => h.toLowerCase());
  if ('tailscaleLogins' in patch) next.tailscaleLogins = stringList(patch.tailscaleLogins, 'tailscaleLogins', REMOTE_LIMITS.maxLogins, loginRule);
  if ('cloudflare' in patch) next.cloudflare = cloudflare(patch.cloudflare);
  return next;
}

/** Reads settings from a parsed file: every field checked; one that is missing takes its default. */
export function settingsFromFile(value: unknown): RemoteSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SettingsError('it is not a JSON object');
  return applySettingsPatch(defaultRemoteSettings(), value as Fields);
}

export interface SettingsStoreOptions {
  home: string;
  log: Logger;
}

/** The settings of one TEND_HOME, as last read or written. */
export class RemoteSettingsStore {
  private settings: RemoteSettings = defaultRemoteSettings();
  private problemText: string | null = null;
  readonly file: string;
  private readonly listeners = new Set<(s: RemoteSettings) => void>();

  constructor(private readonly options: SettingsStoreOptions) {
    this.file = join(remoteDir(options.home), SETTINGS_FILE);
    this.reload();
  }

  get current(): RemoteSettings {
    return this.settings;
  }

  /** Why the file could not be used (remote is off meanwhile), or null. */
  get problem(): string | null {
    return this.problemText;
  }

  /** Reads the file again; a damaged file turns remote off and is logged. */
  reload(): void {
    try {
      const raw = readPrivateJson(this.file);
      this.settings = raw === null ? defaultRemoteSettings() : settingsFromFile(raw);
      this.problemText = null;
    } catch (err) {
      this.settings = defaultRemoteSettings();
      this.problemText = `${this.file} is damaged (${(err as Error).message}); remote access is off until \`tend remote\` writes it again`;
      this.options.log.warn(`remote access: ${this.problemText}`);
    }
  }

  /** Checks and writes a change; throws SettingsError for a bad value, or the file system's error. */
  update(patch: RemoteSettingsPatch | Fields): RemoteSettings {
    const next = applySettingsPatch(this.settings, patch as Fields);
    writePrivateJson(this.file, next);
    this.settings = next;
    this.problemText = null;
    for (const listener of this.listeners) listener(next);
    return next;
  }

  /** Called after each change written through update(). */
  onChange(listener: (s: RemoteSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
