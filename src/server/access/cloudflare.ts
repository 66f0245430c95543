// Cloudflare Access identity (issue 28; DESIGN.md "Access"). Access, in
// front of a tunnel to tend, signs who the caller is into a JWT it sends in
// the Cf-Access-Jwt-Assertion header. The header is only a claim until the
// token is checked: its RS256 signature against the team's published keys
// (jwks.ts), the issuer (the team), the audience (this Access application),
// its time window, and its email on tend's own list. The CF_Authorization
// cookie is not read: Cloudflare does not promise to pass it on.
// Nothing here logs or returns the token.
import type { IncomingMessage } from 'node:http';
import type { CloudflareSettings, IdentityVerdict, IdentityVerifier, RemoteSettings } from './identity.js';
import { parseJwt, signatureRefusal, type ParsedJwt } from './jwt.js';
import { createKeySets, type JwksOptions } from './jwks.js';

export const CLOUDFLARE_TOKEN_HEADER = 'cf-access-jwt-assertion';
/** Clocks disagree a little; a token this close to its window is still taken. */
export const CLOCK_LEEWAY_SECONDS = 60;

export interface CloudflareVerifierOptions extends JwksOptions {
  /** Milliseconds now, for the token's time window and the key cache; Date.now by default. */
  now?: () => number;
  clockLeewaySeconds?: number;
}

export function cloudflareVerifier(options: CloudflareVerifierOptions = {}): IdentityVerifier {
  const now = options.now ?? Date.now;
  const leeway = options.clockLeewaySeconds ?? CLOCK_LEEWAY_SECONDS;
  const keySets = createKeySets({ ...options, now });

  const judge = async (req: IncomingMessage, settings: RemoteSettings): Promise<IdentityVerdict> => {
    const refuse = (reason: string): IdentityVerdict => ({ kind: 'refused', method: 'cloudflare', reason });
    const tokens = req.headersDistinct[CLOUDFLARE_TOKEN_HEADER];
    if (tokens === undefined) return { kind: 'absent' };
    const cloudflare = settings.cloudflare;
    if (cloudflare === null) return refuse('the request carries a Cloudflare Access token, but Cloudflare Access is not set up in this tend');
    if (tokens.length !== 1) return refuse('Cf-Access-Jwt-Assertion came more than once');

    const parsed = parseJwt((tokens[0] ?? '').trim());
    if (!parsed.ok) return refuse(`the Cloudflare Access token is refused: ${parsed.reason}`);
    const jwt = parsed.jwt;
    const key = await keySets.keyFor(cloudflare.issuer, jwt.kid);
    if (!key.ok) return refuse(`the Cloudflare Access token is refused: ${key.reason}`);
    const badSignature = signatureRefusal(jwt, key.key);
    if (badSignature !== null) return refuse(`the Cloudflare Access token is refused: ${badSignature}`);
    const claimsRefusal = claimsRefusalOf(jwt, cloudflare, now() / 1000, leeway);
    if (claimsRefusal !== null) return refuse(`the Cloudflare Access token is refused: ${claimsRefusal}`);

    const email = jwt.payload['email'];
    if (typeof email !== 'string' || email === '') return refuse('the Cloudflare Access token names no email (a service token is not a person)');
    const allowed = cloudflare.emails.some((e) => e.toLowerCase() === email.toLowerCase());
    if (!allowed) return refuse(`the email ${JSON.stringify(email)} is not on this tend's list (tend remote, on this machine, adds it)`);
    return { kind: 'verified', method: 'cloudflare', login: email };
  };

  return {
    method: 'cloudflare',
    async verify(req, settings) {
      try {
        return await judge(req, settings);
      } catch (err) {
        return { kind: 'refused', method: 'cloudflare', reason: `the Cloudflare Access token could not be checked (${(err as Error).message})` };
      }
    },
  };
}

/** Issuer, audience and time window, pinned; null when they hold. `nowSeconds` is Unix time. */
function claimsRefusalOf(jwt: ParsedJwt, settings: CloudflareSettings, nowSeconds: number, leewaySeconds: number): string | null {
  const claims = jwt.payload;
  const issuer = settings.issuer.replace(/\/+$/, '');
  if (claims['iss'] !== issuer) return `it was issued by ${JSON.stringify(claims['iss'] ?? null)}, not ${JSON.stringify(issuer)}`;
  const aud = claims['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(settings.audience)) return "it is for another Access application (its aud is not this tend's audience tag)";
  const exp = claims['exp'];
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return 'it has no expiry (exp)';
  if (nowSeconds > exp + leewaySeconds) return `it expired at ${isoSeconds(exp)}`;
  const nbf = claims['nbf'];
  if (nbf !== undefined && (typeof nbf !== 'number' || nowSeconds + leewaySeconds < nbf)) return `it is not valid before ${typeof nbf === 'number' ? isoSeconds(nbf) : 'an unreadable time'}`;
  const iat = claims['iat'];
  if (iat !== undefined && (typeof iat !== 'number' || nowSeconds + leewaySeconds < iat)) return `it claims to be issued in the future (${typeof iat === 'number' ? isoSeconds(iat) : 'an unreadable time'})`;
  return null;
}

function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}
