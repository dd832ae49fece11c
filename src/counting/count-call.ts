// The one upstream call of the token-counting endpoints (count_tokens, Responses input_tokens, Gemini
// countTokens): a count is a courtesy, so an upstream that cannot give one leaves the caller an estimate.
import { request } from 'undici';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Admission } from '../admission/admission.ts';
import type { KeyRotation } from '../routing/key-rotation.ts';

/** What a count uses of the gateway: the catalog, admission (a count is free, not unlimited), a provider key in turn, where it logs. */
export interface CountServices {
  catalog: Catalog;
  admission: Pick<Admission, 'whileCounting'>;
  keyRotation: Pick<KeyRotation, 'next'>;
  log: Logger;
  masker: SecretMasker;
}

/** A count asks the model's first deployment by priority: one upstream, no failover for an advisory answer. */
export function countingDeployment(model: ModelConfig): DeploymentConfig {
  return [...model.deployments].sort((a, b) => a.priority - b.priority)[0];
}

export interface CountResult {
  body: string;
  /** `exact` when the upstream counted, `estimate` otherwise (also sent as a header). */
  source: 'exact' | 'estimate';
}

/** `counted`: the upstream's 2xx body; `estimate`: unreachable or unable to count (logged); `failed`: its refusal of the request. */
export type CountCall =
  | { kind: 'counted'; text: string }
  | { kind: 'estimate' }
  | { kind: 'failed'; status: number; text: string };

/** Statuses that say the upstream cannot count (down, rate-limited, no such endpoint, our credentials), not that the request is bad. */
function cannotCount(status: number): boolean {
  return status >= 500 || status === 429 || status === 401 || status === 403 || status === 404 || status === 405;
}

export async function countCall(
  deps: { log: Logger; masker: SecretMasker },
  c: {
    provider: string;
    what: string;
    url: string;
    headers: Record<string, string>;
    body: string | Buffer;
    timeouts: { firstByteMs: number; idleMs: number };
  },
): Promise<CountCall> {
  let status: number;
  let text: string;
  try {
    const res = await request(c.url, {
      method: 'POST',
      headers: c.headers,
      body: c.body,
      headersTimeout: c.timeouts.firstByteMs,
      bodyTimeout: c.timeouts.idleMs,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    // The detail (an address, a host name) is the operator's, for the log; the caller gets a count.
    deps.log.warn(
      { provider: c.provider, err: deps.masker.mask(String(err)) },
      `${c.what}: the upstream could not be reached; answered with an estimate`,
    );
    return { kind: 'estimate' };
  }
  if (status >= 200 && status < 300) return { kind: 'counted', text };
  if (cannotCount(status)) {
    deps.log.warn(
      { provider: c.provider, status },
      `${c.what}: the upstream could not count; answered with an estimate`,
    );
    return { kind: 'estimate' };
  }
  return { kind: 'failed', status, text };
}
