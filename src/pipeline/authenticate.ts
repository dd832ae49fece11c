// The auth stage: Bearer only (SPEC §5), x-api-key refused, disabled and expired keys refused with 401.
// Every refusal says `x-should-retry: false`: both SDKs (and Claude Code) read it before the status, so a
// client stops at once and shows the message instead of retrying a key that cannot work.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, type ErrorCode } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { KeyCache } from '../auth/key-cache.ts';

function refused(code: ErrorCode, message?: string): GatewayError {
  return new GatewayError(code, { message, headers: { 'x-should-retry': 'false' } });
}

/** `connection` (the request's socket) lets a keep-alive client skip re-hashing the same key. */
export function authenticate(headers: IncomingHttpHeaders, keys: KeyCache, now: number, connection?: object): KeyRecord {
  const auth = headers.authorization;
  if (auth === undefined || auth === '') {
    if (headers['x-api-key'] !== undefined) throw refused('x_api_key_not_accepted');
    throw refused('missing_api_key');
  }
  const presented = bearerToken(auth);
  if (presented === null) throw refused('missing_api_key', 'The Authorization header must be `Bearer <key>`.');
  const key = presented ? keys.lookup(presented, connection) : null;
  if (!key) throw refused('invalid_api_key');
  if (key.disabled) throw refused('key_disabled');
  if (key.expiresAt !== null && key.expiresAt <= now) throw refused('key_expired');
  return key;
}

/**
 * `authenticate`, and for a key this replica does not know one fresh look at the store first (a promise
 * then; a known key is answered at once): a key made a moment ago on another replica sharing the store
 * (its admin API, the CLI) works on the very next request here too, not after the next poll.
 */
export function authenticateFresh(headers: IncomingHttpHeaders, keys: KeyCache, now: number, connection?: object): KeyRecord | Promise<KeyRecord> {
  try {
    return authenticate(headers, keys, now, connection);
  } catch (refusal) {
    if (!(refusal instanceof GatewayError) || refusal.code !== 'invalid_api_key') throw refusal;
    return keys.refreshNow().then(
      () => authenticate(headers, keys, now, connection),
      () => Promise.reject(refusal),
    );
  }
}

/** What follows `Bearer ` (RFC 7235: the scheme is case-insensitive), or null for any other header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  return header.slice(7).trim();
}
