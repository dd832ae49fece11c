// POST /v1/messages/count_tokens (used by coding agents): forwarded to an Anthropic-style upstream for an
// exact count; for any other upstream, and whenever the upstream cannot count (unreachable, overloaded,
// no usable key, an endpoint it does not have), a local estimate (the admission tokenizer, see
// docs/translation.md). A count is advisory: an estimate serves the caller better than an error.
import type { IncomingMessage } from 'node:http';
import { countCall } from '../providers/count-call.ts';
import { GatewayError } from '../core/errors.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { Dialect } from '../core/dialect.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject } from '../core/json.ts';
import { emptyUsage } from '../core/usage.ts';
import { patchModel } from '../dialects/json-model-patch.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { DEFAULT_UPSTREAM_VERSION } from '../dialects/anthropic-messages/version.ts';
import { resolveModel } from './resolve-model.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
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
  const version = opts.req.headers['anthropic-version'];
  return countAdmitted(gw, { key: opts.key, model, body: value, bodyBytes: opts.text.length, dialect: 'anthropic' }, (deployment) =>
    count(gw, { deployment, value, text: opts.text, version: typeof version === 'string' ? version : DEFAULT_UPSTREAM_VERSION, beta: opts.req.headers['anthropic-beta'], timeouts: model.timeouts }),
  );
}

/**
 * Runs a count on the model's first deployment under the key's limits: free upstream, but not
 * unlimited (the key's RPM and concurrency apply, its budgets are not touched).
 */
export async function countAdmitted<T>(
  gw: Gateway,
  opts: { key: KeyRecord; model: ModelConfig; body: Record<string, unknown>; bodyBytes: number; dialect: Dialect },
  run: (deployment: DeploymentConfig) => Promise<T>,
): Promise<T> {
  const admitting = gw.admission.admit({ ...opts, now: Date.now(), free: true });
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  try {
    return await run([...opts.model.deployments].sort((a, b) => a.priority - b.priority)[0]);
  } finally {
    if (admitted.ticket !== null) {
      const released = gw.admission.finish(admitted.ticket, emptyUsage(), 0);
      if (released instanceof Promise) await released;
    }
  }
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
  const r = await countCall(gw, {
    provider: p.name,
    what: 'count_tokens',
    url: `${p.baseUrl}/v1/messages/count_tokens`,
    headers,
    body: patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...value, model: deployment.model }),
    timeouts: opts.timeouts,
  });
  if (r.kind === 'counted') return { body: r.text, source: 'exact' };
  if (r.kind === 'estimate') return estimate();
  throw upstreamFailure({ status: r.status, text: r.text, upstreamDialect: 'anthropic', clientDialect: 'anthropic', masker: gw.masker });
}
