// POST /v1beta/models/{model}:countTokens: checked as count_tokens is, then counted on the model's first
// deployment. An upstream that speaks Gemini's wire and counts counts exactly; any other upstream, and one that cannot count, leaves the
// local estimate (as count_tokens does on /v1/messages: a count is advisory, and an estimate serves the
// caller better than an error).
import type { DeploymentConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { GeminiCall } from '../dialects/gemini/routes.ts';
import { validateGeminiCount } from '../dialects/gemini/validate.ts';
import { resolveModel } from '../catalog/catalog.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { providerSpec } from '../registry.ts';
import { targetQuery } from '../spec/provider.ts';
import { upstreamRequest } from '../upstream/http-provider.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
import { countCall, countingDeployment, type CountResult, type CountServices } from './count-call.ts';

export async function countGeminiTokens(
  gw: CountServices,
  o: { key: KeyRecord; call: GeminiCall; value: unknown },
): Promise<CountResult> {
  const name = o.call.model ?? '';
  const request = validateGeminiCount(o.value, name);
  const model = resolveModel(gw.catalog, o.key, name, 'gemini');
  const value = o.value as Record<string, unknown>;
  return gw.admission.whileCounting(
    { key: o.key, model, body: request, bodyBytes: JSON.stringify(value).length, dialect: 'gemini' },
    () =>
      count(gw, {
        deployment: countingDeployment(model),
        value,
        request,
        version: o.call.version,
        timeouts: model.timeouts,
      }),
  );
}

async function count(
  gw: CountServices,
  opts: {
    deployment: DeploymentConfig;
    value: Record<string, unknown>;
    request: Record<string, unknown>;
    version: string;
    timeouts: { firstByteMs: number; idleMs: number };
  },
): Promise<CountResult> {
  const { deployment } = opts;
  const estimate = (): CountResult => ({
    body: JSON.stringify({ totalTokens: estimatePromptTokens(opts.request, { model: deployment.model }) }),
    source: 'estimate',
  });
  const p = deployment.provider;
  const spec = providerSpec(p);
  if (spec.upstreamDialect('gemini', p, deployment) !== 'gemini' || !spec.countsTokens(p, 'gemini')) return estimate();
  const apiKey = gw.keyRotation.next(p);
  if (apiKey === null && p.apiKeys.length > 0) return estimate();
  // A whole generateContentRequest names its model inside: the upstream's, as the path does.
  const body =
    opts.value.generateContentRequest === undefined
      ? JSON.stringify(opts.value)
      : JSON.stringify({
          ...opts.value,
          generateContentRequest: { ...opts.request, model: `models/${deployment.model.replace(/^models\//, '')}` },
        });
  const query = targetQuery('count-tokens', 'gemini', false, opts.version);
  const sent = await upstreamRequest(deployment, query, { apiKey, body });
  const r = await countCall(gw, { provider: p.name, what: 'countTokens', ...sent, timeouts: opts.timeouts });
  if (r.kind === 'counted') return { body: r.text, source: 'exact' };
  if (r.kind === 'estimate') return estimate();
  throw upstreamFailure({
    status: r.status,
    text: r.text,
    upstreamDialect: 'gemini',
    clientDialect: 'gemini',
    masker: gw.masker,
  });
}
