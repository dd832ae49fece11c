// POST /v1/messages/count_tokens (used by coding agents): forwarded to an Anthropic-style upstream for an
// exact count; for any other upstream, and whenever the upstream cannot count (unreachable, overloaded,
// no usable key, an endpoint it does not have), a local estimate (the admission tokenizer, see
// docs/translation.md). A count is advisory: an estimate serves the caller better than an error.
import type { IncomingMessage } from 'node:http';
import { request } from 'undici';
import { GatewayError } from '../core/errors.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject } from '../core/json.ts';
import { emptyUsage } from '../core/usage.ts';
import { patchModel } from '../dialects/json-model-patch.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { DEFAULT_UPSTREAM_VERSION } from '../dialects/anthropic-messages/version.ts';
import { resolveModel } from './resolve-model.ts';
import { upstreamFailure } from './upstream-error.ts';
import type { Gateway } from './gateway.ts';

export interface CountResult {
  body: string;
  /** `exact` when an Anthropic-style upstream counted, `estimate` otherwise (also sent as a header). */
  source: 'exact' | 'estimate';
}

export async function countTokens(gw: Gateway, opts: { key: KeyRecord; text: string; value: unknown; req: IncomingMessage }): Promise<CountResult> {
  const { value } = opts;
  if (!isObject(value) || typeof value.model !== 'string') throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (!Array.isArray(value.messages)) throw new GatewayError('invalid_request', { message: 'messages: Field required.', param: 'messages' });
  const model = resolveModel(gw.catalog, opts.key, value.model, 'anthropic');
  // Free upstream, but not unlimited: the key's RPM and concurrency apply, its budgets are not touched.
  const admitting = gw.admission.admit({ key: opts.key, model, body: value, bodyBytes: opts.text.length, now: Date.now(), dialect: 'anthropic', free: true });
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  try {
    const deployment = [...model.deployments].sort((a, b) => a.priority - b.priority)[0];
    const version = opts.req.headers['anthropic-version'];
    return await count(gw, { deployment, value, text: opts.text, version: typeof version === 'string' ? version : DEFAULT_UPSTREAM_VERSION, beta: opts.req.headers['anthropic-beta'], timeouts: model.timeouts });
  } finally {
    if (admitted.ticket !== null) {
      const released = gw.admission.finish(admitted.ticket, emptyUsage(), 0);
      if (released instanceof Promise) await released;
    }
  }
}

/** Statuses that say the upstream cannot count now, not that the request is wrong. */
function cannotCount(status: number): boolean {
  return status >= 500 || status === 429 || status === 401 || status === 403 || status === 404 || status === 405;
}

async function count(
  gw: Gateway,
  opts: { deployment: DeploymentConfig; value: Record<string, unknown>; text: string; version: string; beta: string | string[] | undefined; timeouts: { firstByteMs: number; idleMs: number } },
): Promise<CountResult> {
  const { deployment, value } = opts;
  const estimate = (): CountResult => ({ body: JSON.stringify({ input_tokens: estimatePromptTokens(value, { model: deployment.model }) }), source: 'estimate' });
  const p = deployment.provider;
  if (p.kind !== 'anthropic') return estimate();
  const apiKey = gw.keyRotation.next(p);
  // Every key of the provider was refused: the generation path has taken it out too.
  if (apiKey === null && p.apiKeys.length > 0) return estimate();
  // Counting passes through: the upstream reads the body under the caller's version.
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': opts.version, 'accept-encoding': 'identity' };
  if (typeof opts.beta === 'string') headers['anthropic-beta'] = opts.beta;
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  let status: number;
  let text: string;
  try {
    const res = await request(`${p.baseUrl}/v1/messages/count_tokens`, {
      method: 'POST',
      headers,
      body: patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...value, model: deployment.model }),
      headersTimeout: opts.timeouts.firstByteMs,
      bodyTimeout: opts.timeouts.idleMs,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    // The detail (an address, a host name) is the operator's, for the log; the caller gets a count.
    gw.log.warn({ provider: p.name, err: gw.masker.mask(String(err)) }, 'count_tokens: the upstream could not be reached; answered with an estimate');
    return estimate();
  }
  if (status >= 200 && status < 300) return { body: text, source: 'exact' };
  if (cannotCount(status)) {
    gw.log.warn({ provider: p.name, status }, 'count_tokens: the upstream could not count; answered with an estimate');
    return estimate();
  }
  throw upstreamFailure({ status, text, upstreamDialect: 'anthropic', clientDialect: 'anthropic', masker: gw.masker });
}
