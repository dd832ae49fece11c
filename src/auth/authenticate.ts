// The auth stage: Bearer only (SPEC §5), x-api-key refused, disabled and expired keys refused with 401.
// Every refusal says `x-should-retry: false`: both SDKs (and Claude Code) read it before the status, so a
// client stops at once and shows the message instead of retrying a key that cannot work.
// Keys are looked up in an in-memory view of the key table (key-cache.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, type ErrorCode } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { queryKey } from '../dialects/gemini/routes.ts';
import type { KeyCache } from './key-cache.ts';
import { hashKey, sameHash } from './key-material.ts';

function refused(code: ErrorCode, message?: string): GatewayError {
  return new GatewayError(code, { message, headers: { 'x-should-retry': 'false' } });
}

/**
 * `connection` (the request's socket) lets a keep-alive client skip re-hashing the same key. A key the
 * cache does not know is looked up in the store first (KeyCache.lookupStored), so a key made a moment ago by
 * another replica or the CLI works at once.
 */
export async function authenticate(
  headers: IncomingHttpHeaders,
  keys: KeyCache,
  now: number,
  connection?: object,
): Promise<KeyRecord> {
  const auth = headers.authorization;
  if (auth === undefined || auth === '') {
    if (headers['x-api-key'] !== undefined) throw refused('x_api_key_not_accepted');
    throw refused('missing_api_key');
  }
  const presented = bearerToken(auth);
  if (presented === null) throw refused('missing_api_key', 'The Authorization header must be `Bearer <key>`.');
  return checkedKey(presented, keys, now, connection);
}

/**
 * The auth stage of Gemini's native paths (DESIGN.md Part 3): the key may also come as `x-goog-api-key`
 * or `?key=`, as Gemini clients send it; here only, everywhere else Bearer-only stands.
 */
export async function authenticateGemini(
  headers: IncomingHttpHeaders,
  url: string | undefined,
  keys: KeyCache,
  now: number,
  connection?: object,
): Promise<KeyRecord> {
  if (headers.authorization !== undefined && headers.authorization !== '')
    return authenticate(headers, keys, now, connection);
  const header = headers['x-goog-api-key'];
  const presented = typeof header === 'string' && header !== '' ? header : queryKey(url);
  if (presented === null || presented === '') {
    throw refused(
      'missing_api_key',
      'Missing API key: send it as `x-goog-api-key: <key>`, `?key=<key>` or `Authorization: Bearer <key>`.',
    );
  }
  return checkedKey(presented.trim(), keys, now, connection);
}

/** A key the cache holds is checked at once; only a key it does not know waits for the store. */
function checkedKey(
  presented: string,
  keys: KeyCache,
  now: number,
  connection: object | undefined,
): KeyRecord | Promise<KeyRecord> {
  const key = presented ? keys.lookup(presented, connection) : null;
  if (key !== null) return usableKey(key, now);
  const stored = presented ? keys.lookupStored(presented) : null;
  if (stored === null) throw refused('invalid_api_key');
  return stored.then((rec) => {
    if (rec === null) throw refused('invalid_api_key');
    return usableKey(rec, now);
  });
}

function usableKey(key: KeyRecord, now: number): KeyRecord {
  if (key.disabled) throw refused('key_disabled');
  if (key.expiresAt !== null && key.expiresAt <= now) throw refused('key_expired');
  return key;
}

/** What follows `Bearer ` (RFC 7235: the scheme is case-insensitive), or null for any other header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  return header.slice(7).trim();
}

/** GET /metrics under `metrics_token`: hashes both sides first, so the comparison takes the same time whatever the lengths. */
export function metricsTokenCheck(token: string | null): ((authorization: string | undefined) => boolean) | null {
  if (token === null) return null;
  const tokenHash = hashKey(token);
  return function metricsAuthorized(authorization) {
    const presented = bearerToken(authorization);
    return presented !== null && sameHash(hashKey(presented), tokenHash);
  };
}
