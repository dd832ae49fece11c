// Signed cookies for signed-in users: the session (who, which role, until when) and the sign-in's own
// short-lived state (PKCE verifier, state, nonce). Nothing is kept on the server, so every replica that
// shares the secret accepts every session; the HMAC makes a cookie unforgeable and the expiry bounds it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'mg_session';
export const SIGN_IN_COOKIE = 'mg_oidc';

export class CookieSigner {
  readonly #secret: Buffer;

  constructor(secret: Buffer) {
    this.#secret = secret;
  }

  /** `payload` as `base64url(JSON).base64url(HMAC)`, with its expiry inside. */
  sign(payload: object, expiresAt: number): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: expiresAt })).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  /** The payload of a cookie this signer made and that has not expired; null for anything else. */
  verify<T extends object>(value: string | undefined, now: number): (T & { exp: number }) | null {
    if (value === undefined) return null;
    const dot = value.indexOf('.');
    if (dot <= 0) return null;
    const body = value.slice(0, dot);
    const mac = Buffer.from(value.slice(dot + 1), 'base64url');
    const want = Buffer.from(this.#mac(body), 'base64url');
    if (mac.length !== want.length || !timingSafeEqual(mac, want)) return null;
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp: number };
      return typeof parsed.exp === 'number' && parsed.exp > now ? parsed : null;
    } catch {
      return null;
    }
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#secret).update(body).digest('base64url');
  }
}

/** One cookie's value from a Cookie header; undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A Set-Cookie value: HttpOnly and Secure always (browsers keep Secure cookies of http://localhost too).
 * `sameSite: 'Lax'` for the sign-in's state, which must come back on the provider's redirect.
 */
export function setCookie(
  name: string,
  value: string,
  opts: { path: string; maxAgeS: number; sameSite: 'Strict' | 'Lax' },
): string {
  return `${name}=${value}; Path=${opts.path}; Max-Age=${opts.maxAgeS}; HttpOnly; Secure; SameSite=${opts.sameSite}`;
}
