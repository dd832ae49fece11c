// The auth stage: Bearer only (SPEC §5), x-api-key refused, disabled and expired keys refused with 401.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { KeyCache } from '../auth/key-cache.ts';

/**
 * `connection` (the request's socket) lets a keep-alive client skip re-hashing the same key. A key the
 * cache does not know is looked up in the store first (key-cache.ts): only then the answer is a promise.
 */
export function authenticate(headers: IncomingHttpHeaders, keys: KeyCache, now: number, connection?: object): KeyRecord | Promise<KeyRecord> {
  const auth = headers.authorization;
  if (auth === undefined || auth === '') {
    if (headers['x-api-key'] !== undefined) throw new GatewayError('x_api_key_not_accepted');
    throw new GatewayError('missing_api_key');
  }
  const presented = bearerToken(auth);
  if (presented === null) throw new GatewayError('missing_api_key', { message: 'The Authorization header must be `Bearer <key>`.' });
  const key = presented ? keys.lookup(presented, connection) : null;
  if (key !== null) return usableKey(key, now);
  const stored = presented ? keys.lookupStored(presented) : null;
  if (stored === null) throw new GatewayError('invalid_api_key');
  return stored.then((rec) => {
    if (rec === null) throw new GatewayError('invalid_api_key');
    return usableKey(rec, now);
  });
}

function usableKey(key: KeyRecord, now: number): KeyRecord {
  if (key.disabled) throw new GatewayError('key_disabled');
  if (key.expiresAt !== null && key.expiresAt <= now) throw new GatewayError('key_expired');
  return key;
}

/** What follows `Bearer ` (RFC 7235: the scheme is case-insensitive), or null for any other header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  return header.slice(7).trim();
}

/** SPEC §9 / DESIGN.md: /v1/messages requires anthropic-version 2023-06-01 or 2026-10-21 (SDK 1.x). */
export function checkAnthropicVersion(headers: IncomingHttpHeaders): void {
  const v = headers['anthropic-version'];
  if (v === undefined || v === '') throw new GatewayError('missing_version_header');
  if (v !== '2023-06-01' && v !== '2026-10-21') throw new GatewayError('unsupported_version', { message: `Unsupported anthropic-version "${String(v)}"; the supported values are 2023-06-01 and 2026-10-21.` });
}
