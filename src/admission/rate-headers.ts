// The x-ratelimit-* response headers (OpenAI's names) and retry-after, from a key's limits and usage.
import type { AdmissionLimits, AdmissionSnapshot } from './store.ts';

export interface RateHeaderInput {
  limits: AdmissionLimits;
  snapshot: AdmissionSnapshot;
  /** Set on a 429 refusal; becomes `retry-after` in whole seconds. */
  retryAfterSec?: number;
}

/** Only limits that are set get headers; resets are written like OpenAI's (`12s`). */
export function rateLimitHeaders(input: RateHeaderInput): Record<string, string> {
  const { limits, snapshot } = input;
  const headers: Record<string, string> = {};
  const reset = `${snapshot.windowResetSec}s`;
  if (limits.rpm !== null) {
    headers['x-ratelimit-limit-requests'] = String(limits.rpm);
    headers['x-ratelimit-remaining-requests'] = String(Math.max(0, limits.rpm - snapshot.rpmUsed));
    headers['x-ratelimit-reset-requests'] = reset;
  }
  if (limits.tpm !== null) {
    headers['x-ratelimit-limit-tokens'] = String(limits.tpm);
    headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, limits.tpm - snapshot.tpmUsed));
    headers['x-ratelimit-reset-tokens'] = reset;
  }
  if (input.retryAfterSec !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(input.retryAfterSec)));
  return headers;
}
