// The one upstream call of the token-counting endpoints (count_tokens, Responses input_tokens, Gemini
// countTokens): a count is a courtesy, so an upstream that cannot give one leaves the caller an estimate.
import { request } from 'undici';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../observability/mask-secrets.ts';

/** `counted`: the upstream's 2xx body; `estimate`: unreachable or unable to count (logged); `failed`: its refusal of the request. */
export type CountCall = { kind: 'counted'; text: string } | { kind: 'estimate' } | { kind: 'failed'; status: number; text: string };

/** Statuses that say the upstream cannot count (down, rate-limited, no such endpoint, our credentials), not that the request is bad. */
function cannotCount(status: number): boolean {
  return status >= 500 || status === 429 || status === 401 || status === 403 || status === 404 || status === 405;
}

export async function countCall(
  deps: { log: Logger; masker: SecretMasker },
  c: { provider: string; what: string; url: string; headers: Record<string, string>; body: string; timeouts: { firstByteMs: number; idleMs: number } },
): Promise<CountCall> {
  let status: number;
  let text: string;
  try {
    const res = await request(c.url, { method: 'POST', headers: c.headers, body: c.body, headersTimeout: c.timeouts.firstByteMs, bodyTimeout: c.timeouts.idleMs });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    // The detail (an address, a host name) is the operator's, for the log; the caller gets a count.
    deps.log.warn({ provider: c.provider, err: deps.masker.mask(String(err)) }, `${c.what}: the upstream could not be reached; answered with an estimate`);
    return { kind: 'estimate' };
  }
  if (status >= 200 && status < 300) return { kind: 'counted', text };
  if (cannotCount(status)) {
    deps.log.warn({ provider: c.provider, status }, `${c.what}: the upstream could not count; answered with an estimate`);
    return { kind: 'estimate' };
  }
  return { kind: 'failed', status, text };
}
