// Generating, hashing and comparing API keys (masking is core/mask-secrets.ts). A key is `sk-` + 48 base62 characters from the CSPRNG.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 48;

export function generateKey(): string {
  let out = 'sk-';
  while (out.length < 3 + KEY_BODY_LENGTH) {
    // Rejection sampling keeps every character equally likely (248 = 4 × 62).
    for (const b of randomBytes(64)) {
      if (b < 248 && out.length < 3 + KEY_BODY_LENGTH) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** hex SHA-256; the one-shot `crypto.hash` costs a fraction of createHash() on the per-request path. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** A short random id for key records (not secret). */
export function newKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/**
 * Constant-time equality of two strings of the same length (a key against the one its connection sent
 * before): every character is compared whatever the first difference, with no branch on the content and
 * no Buffer to make, which on a cold request path costs more than the comparison itself.
 */
export function sameString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
