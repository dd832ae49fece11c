// POST /v1/responses/input_tokens: the upstream's exact count where it serves the Responses API
// natively (`apis: [responses]`), else the gateway's estimate (the admission tokenizer), as
// /v1/messages/count_tokens does. A count is advisory: an estimate serves better than an error.
import { request } from 'undici';
import { GatewayError } from '../core/errors.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject } from '../core/json.ts';
import { emptyUsage } from '../core/usage.ts';
import { patchModel } from '../dialects/json-model-patch.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { resolveModel } from './resolve-model.ts';
import { upstreamFailure } from './upstream-error.ts';
import type { CountResult } from './count-tokens.ts';
import type { Gateway } from './gateway.ts';

export async function countResponsesInputTokens(gw: Gateway, opts: { key: KeyRecord; text: string; value: unknown }): Promise<CountResult> {
  const { value } = opts;
  if (!isObject(value) || typeof value.model !== 'string') throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (value.input !== undefined && typeof value.input !== 'string' && !Array.isArray(value.input)) {
    throw new GatewayError('invalid_request', { message: '`input` must be a string or an array of input items.', param: 'input' });
  }
  const model = resolveModel(gw.catalog, opts.key, value.model, 'responses');
  // Free, but not unlimited: the key's RPM and concurrency apply, its budgets are not touched.
  const admitting = gw.admission.admit({ key: opts.key, model, body: value, bodyBytes: opts.text.length, now: Date.now(), dialect: 'responses', free: true });
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  try {
    const deployment = [...model.deployments].sort((a, b) => a.priority - b.priority)[0];
    return await count(gw, { deployment, value, text: opts.text, timeouts: model.timeouts });
  } finally {
    if (admitted.ticket !== null) {
      const released = gw.admission.finish(admitted.ticket, emptyUsage(), 0);
      if (released instanceof Promise) await released;
    }
  }
}

function cannotCount(status: number): boolean {
  return status >= 500 || status === 429 || status === 401 || status === 403 || status === 404 || status === 405;
}

async function count(gw: Gateway, opts: { deployment: DeploymentConfig; value: Record<string, unknown>; text: string; timeouts: { firstByteMs: number; idleMs: number } }): Promise<CountResult> {
  const { deployment, value } = opts;
  const estimate = (): CountResult => ({
    body: JSON.stringify({ object: 'response.input_tokens', input_tokens: estimatePromptTokens(value, { model: deployment.model }) }),
    source: 'estimate',
  });
  const p = deployment.provider;
  if (p.kind !== 'openai' || !(p.apis ?? []).includes('responses')) return estimate();
  const apiKey = gw.keyRotation.next(p);
  if (apiKey === null && p.apiKeys.length > 0) return estimate();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity', ...p.headers };
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  let status: number;
  let text: string;
  try {
    const res = await request(`${p.baseUrl}/responses/input_tokens`, {
      method: 'POST',
      headers,
      body: patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...value, model: deployment.model }),
      headersTimeout: opts.timeouts.firstByteMs,
      bodyTimeout: opts.timeouts.idleMs,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    gw.log.warn({ provider: p.name, err: gw.masker.mask(String(err)) }, 'responses input_tokens: the upstream could not be reached; answered with an estimate');
    return estimate();
  }
  if (status >= 200 && status < 300) return { body: text, source: 'exact' };
  if (cannotCount(status)) {
    gw.log.warn({ provider: p.name, status }, 'responses input_tokens: the upstream could not count; answered with an estimate');
    return estimate();
  }
  throw upstreamFailure({ status, text, upstreamDialect: 'responses', clientDialect: 'responses', masker: gw.masker });
}
