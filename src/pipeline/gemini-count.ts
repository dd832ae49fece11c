// POST /v1beta/models/{model}:countTokens: forwarded to a Gemini upstream for an exact count; for any
// other upstream, and whenever the upstream cannot count, the local estimate (as count_tokens does on
// /v1/messages: a count is advisory, and an estimate serves the caller better than an error).
import { countCall } from '../providers/count-call.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { validateGeminiCount } from '../dialects/gemini/validate.ts';
import { geminiUpstreamPath } from '../dialects/gemini/passthrough-exchange.ts';
import type { GeminiCall } from '../http/gemini-routes.ts';
import { countAdmitted, type CountResult } from './count-tokens.ts';
import { resolveModel } from './resolve-model.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
import type { Gateway } from './gateway.ts';

export async function geminiCountTokens(gw: Gateway, opts: { key: KeyRecord; call: GeminiCall; value: unknown }): Promise<CountResult> {
  const name = opts.call.model ?? '';
  const request = validateGeminiCount(opts.value, name);
  const model = resolveModel(gw.catalog, opts.key, name, 'gemini');
  const value = opts.value as Record<string, unknown>;
  return countAdmitted(gw, { key: opts.key, model, body: request, bodyBytes: JSON.stringify(value).length, dialect: 'gemini' }, (deployment) =>
    count(gw, { deployment, model, value, request, version: opts.call.version }),
  );
}

async function count(
  gw: Gateway,
  opts: { deployment: DeploymentConfig; model: ModelConfig; value: Record<string, unknown>; request: Record<string, unknown>; version: string },
): Promise<CountResult> {
  const { deployment } = opts;
  const estimate = (): CountResult => ({ body: JSON.stringify({ totalTokens: estimatePromptTokens(opts.request, { model: deployment.model }) }), source: 'estimate' });
  const p = deployment.provider;
  if (p.kind !== 'gemini') return estimate();
  const apiKey = gw.keyRotation.next(p);
  if (apiKey === null && p.apiKeys.length > 0) return estimate();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity', ...p.headers };
  if (apiKey !== null) headers['x-goog-api-key'] = apiKey;
  // A whole generateContentRequest names its model inside: the upstream's, as the path does.
  const body = opts.value.generateContentRequest === undefined
    ? JSON.stringify(opts.value)
    : JSON.stringify({ ...opts.value, generateContentRequest: { ...opts.request, model: `models/${deployment.model.replace(/^models\//, '')}` } });
  const r = await countCall(gw, {
    provider: p.name,
    what: 'countTokens',
    url: `${p.baseUrl}${geminiUpstreamPath(opts.version, deployment.model, 'countTokens')}`,
    headers,
    body,
    timeouts: opts.model.timeouts,
  });
  if (r.kind === 'counted') return { body: r.text, source: 'exact' };
  if (r.kind === 'estimate') return estimate();
  throw upstreamFailure({ status: r.status, text: r.text, upstreamDialect: 'gemini', clientDialect: 'gemini', masker: gw.masker });
}
