// Host names and addresses as the gate compares them. A Host header is
// "name", "name:port", "[v6]" or "[v6]:port"; an allowed host without a port
// matches its name on any port (`tailscale serve` sends the bare name, a
// --listen address carries its port), one with a port matches only that.
// Names compare without case; nothing else is loosened: "evil.example" and
// "host.evil.example" are not "host".

export interface HostParts {
  name: string;
  port: number | null;
}

/** A DNS name or IPv4 address (letters, digits, dots, hyphens), or a bracketed IPv6 address. */
const NAME_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*\.?|\[[0-9a-f:.]+\])$/;
const MAX_HOST_CHARS = 260;

/** The parts of a Host header (or an allowed-host entry), or null when it is none. */
export function parseHost(value: string | undefined): HostParts | null {
  if (value === undefined || value.length === 0 || value.length > MAX_HOST_CHARS) return null;
  const text = value.trim().toLowerCase();
  let name = text;
  let port: number | null = null;
  const colon = text.lastIndexOf(':');
  if (colon !== -1 && !text.endsWith(']')) {
    name = text.slice(0, colon);
    const digits = text.slice(colon + 1);
    if (!/^\d{1,5}$/.test(digits)) return null;
    port = Number(digits);
    if (port < 1 || port > 65535) return null;
  }
  if (!NAME_PATTERN.test(name)) return null;
  return { name: name.endsWith('.') ? name.slice(0, -1) : name, port };
}

/** Whether a request's Host is one of the allowed hosts. */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  const host = parseHost(header);
  if (host === null) return false;
  return allowed.some((entry) => {
    const rule = parseHost(entry);
    return rule !== null && rule.name === host.name && (rule.port === null || rule.port === host.port);
  });
}

/** The Host header as one canonical string (lower case, no trailing dot), for binding a cookie or a link to it. */
export function canonicalHost(header: string | undefined): string | null {
  const host = parseHost(header);
  if (host === null) return null;
  return host.port === null ? host.name : `${host.name}:${host.port}`;
}

/** 127.0.0.0/8 and ::1, in either of the forms Node reports them. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, '');
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || a === '::1' || a === '0:0:0:0:0:0:0:1';
}

/** "HOST:PORT" for a --listen address: an IPv4 address, a name, or [v6], and a port. */
export function parseListenAddress(value: string): { host: string; port: number } | null {
  const parts = parseHost(value);
  if (parts === null || parts.port === null) return null;
  return { host: parts.name.replace(/^\[|\]$/g, ''), port: parts.port };
}
