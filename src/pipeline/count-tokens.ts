// POST /v1/messages/count_tokens (used by coding agents): forwarded to an Anthropic-style upstream for an
// exact count; for any other upstream a local estimate (the admission tokenizer, see docs/translation.md).
import type { IncomingMessage } from 'node:http';
import { request } from 'undici';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject } from '../core/json.ts';
import { patchModel } from '../dialects/json-model-patch.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
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
  const deployment = [...model.deployments].sort((a, b) => a.priority - b.priority)[0];
  const p = deployment.provider;
  if (p.kind === 'anthropic') {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'accept-encoding': 'identity' };
    const beta = opts.req.headers['anthropic-beta'];
    if (typeof beta === 'string') headers['anthropic-beta'] = beta;
    if (p.apiKeys[0]) headers['x-api-key'] = p.apiKeys[0];
    const res = await request(`${p.baseUrl}/v1/messages/count_tokens`, {
      method: 'POST',
      headers,
      body: patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...value, model: deployment.model }),
      headersTimeout: model.timeouts.firstByteMs,
      bodyTimeout: model.timeouts.idleMs,
    }).catch((err: unknown) => {
      throw new GatewayError('upstream_error', { message: `Could not reach the upstream provider to count tokens: ${gw.masker.mask(String(err))}` });
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      throw upstreamFailure({ status: res.statusCode, text, upstreamDialect: 'anthropic', clientDialect: 'anthropic', masker: gw.masker });
    }
    return { body: text, source: 'exact' };
  }
  return { body: JSON.stringify({ input_tokens: estimatePromptTokens(value, { model: deployment.model }) }), source: 'estimate' };
}
