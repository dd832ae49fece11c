// The auth stage: Bearer only (SPEC §5), x-api-key refused, disabled and expired keys refused with 401.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { KeyCache } from '../auth/key-cache.ts';
import { queryKey } from '../http/gemini-routes.ts';

/** `connection` (the request's socket) lets a keep-alive client skip re-hashing the same key. */
export function authenticate(headers: IncomingHttpHeaders, keys: KeyCache, now: number, connection?: object): KeyRecord {
  const auth = headers.authorization;
  if (auth === undefined || auth === '') {
    if (headers['x-api-key'] !== undefined) throw new GatewayError('x_api_key_not_accepted');
    throw new GatewayError('missing_api_key');
  }
  const presented = bearerToken(auth);
  if (presented === null) throw new GatewayError('missing_api_key', { message: 'The Authorization header must be `Bearer <key>`.' });
  return checkedKey(presented, keys, now, connection);
}

/**
 * The auth stage of Gemini's native paths (DESIGN.md Part 3): the key may also come as `x-goog-api-key`
 * or `?key=`, as Gemini clients send it; here only, everywhere else Bearer-only stands.
 */
export function authenticateGemini(headers: IncomingHttpHeaders, url: string | undefined, keys: KeyCache, now: number, connection?: object): KeyRecord {
  if (headers.authorization !== undefined && headers.authorization !== '') return authenticate(headers, keys, now, connection);
  const header = headers['x-goog-api-key'];
  const presented = typeof header === 'string' && header !== '' ? header : queryKey(url);
  if (presented === null || presented === '') {
    throw new GatewayError('missing_api_key', { message: 'Missing API key: send it as `x-goog-api-key: <key>`, `?key=<key>` or `Authorization: Bearer <key>`.' });
  }
  return checkedKey(presented.trim(), keys, now, connection);
}

function checkedKey(presented: string, keys: KeyCache, now: number, connection: object | undefined): KeyRecord {
  const key = presented ? keys.lookup(presented, connection) : null;
  if (!key) throw new GatewayError('invalid_api_key');
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
