// POST /v1/responses/input_tokens: checked as count_tokens is, then counted on the model's first deployment:
// the upstream's exact count where it has one (an upstream that serves the Responses API natively and
// counts, as kind openai with `apis: [responses]`; an Anthropic-style upstream's count_tokens, asked with
// the request as the hub writes it), else the gateway's estimate (the admission tokenizer). A count is advisory: an estimate serves
// better than an error.
import type { DeploymentConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { validateResponsesCount } from '../dialects/openai-responses/validate.ts';
import { resolveModel } from '../catalog/catalog.ts';
import { isObject } from '../core/json.ts';
import { patchModel } from '../dialects/json-text.ts';
import { responsesClient } from '../dialects/openai-responses/index.ts';
import { messagesUpstream } from '../dialects/anthropic-messages/index.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
import { providerSpec } from '../registry.ts';
import { targetQuery } from '../spec/provider.ts';
import { upstreamRequest } from '../upstream/http-provider.ts';
import { countCall, countingDeployment, type CountResult, type CountServices } from './count-call.ts';

/** `defaultMaxTokens`: the output limit the hub writes into a request that names none (Anthropic requires one). */
export async function countResponsesTokens(
  gw: CountServices,
  o: { key: KeyRecord; text: string; value: unknown; defaultMaxTokens: number },
): Promise<CountResult> {
  const body = validateResponsesCount(o.value);
  const model = resolveModel(gw.catalog, o.key, body.model, 'responses');
  return gw.admission.whileCounting({ key: o.key, model, body, bodyBytes: o.text.length, dialect: 'responses' }, () =>
    count(gw, {
      deployment: countingDeployment(model),
      value: body,
      text: o.text,
      timeouts: model.timeouts,
      defaultMaxTokens: o.defaultMaxTokens,
    }),
  );
}

interface CountTarget {
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
  upstreamDialect: 'responses' | 'anthropic';
}

/** Where the deployment's upstream counts a Responses request exactly, or null (then: the estimate). */
async function countTarget(gw: CountServices, opts: CountOptions): Promise<CountTarget | null> {
  const { deployment } = opts;
  const p = deployment.provider;
  const spec = providerSpec(p);
  const dialect = spec.upstreamDialect('responses', p, deployment);
  if ((dialect !== 'responses' && dialect !== 'anthropic') || !spec.countsTokens(p, dialect)) return null;
  const apiKey = gw.keyRotation.next(p);
  // Every key of the provider was refused: the generation path has taken it out too.
  if (apiKey === null && p.apiKeys.length > 0) return null;
  if (dialect === 'responses') {
    const body = patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...opts.value, model: deployment.model });
    return { ...(await upstreamRequest(deployment, COUNT_RESPONSES, { apiKey, body })), upstreamDialect: dialect };
  }
  // An Anthropic-style upstream counts the request as the hub would send it.
  let encoded: Record<string, unknown>;
  try {
    const req = responsesClient.decodeRequest(opts.value);
    encoded = JSON.parse(
      messagesUpstream.encodeRequest(req, {
        upstreamModel: deployment.model,
        defaultMaxTokens: opts.defaultMaxTokens,
        refusedParams: deployment.refusedParams ?? [],
      }).body,
    ) as Record<string, unknown>;
  } catch {
    return null;
  }
  const counted: Record<string, unknown> = {};
  for (const k of COUNTED_FIELDS) if (encoded[k] !== undefined) counted[k] = encoded[k];
  const body = JSON.stringify(counted);
  return { ...(await upstreamRequest(deployment, COUNT_MESSAGES, { apiKey, body })), upstreamDialect: dialect };
}

const COUNT_RESPONSES = targetQuery('count-tokens', 'responses', false);
const COUNT_MESSAGES = targetQuery('count-tokens', 'anthropic', false);

/** What Anthropic's count_tokens takes of a messages request (it refuses max_tokens, stream, sampling). */
const COUNTED_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'] as const;

interface CountOptions {
  deployment: DeploymentConfig;
  value: Record<string, unknown>;
  text: string;
  timeouts: { firstByteMs: number; idleMs: number };
  defaultMaxTokens: number;
}

async function count(gw: CountServices, opts: CountOptions): Promise<CountResult> {
  const { deployment, value } = opts;
  const estimate = (): CountResult => ({
    body: JSON.stringify({
      object: 'response.input_tokens',
      input_tokens: estimatePromptTokens(value, { model: deployment.model }),
    }),
    source: 'estimate',
  });
  const p = deployment.provider;
  const target = await countTarget(gw, opts);
  if (target === null) return estimate();
  const r = await countCall(gw, {
    provider: p.name,
    what: 'responses input_tokens',
    url: target.url,
    headers: target.headers,
    body: target.body,
    timeouts: opts.timeouts,
  });
  if (r.kind === 'estimate') return estimate();
  if (r.kind === 'failed')
    throw upstreamFailure({
      status: r.status,
      text: r.text,
      upstreamDialect: target.upstreamDialect,
      clientDialect: 'responses',
      masker: gw.masker,
    });
  if (target.upstreamDialect === 'responses') return { body: r.text, source: 'exact' };
  const counted = anthropicCount(r.text);
  return counted === null
    ? estimate()
    : { body: JSON.stringify({ object: 'response.input_tokens', input_tokens: counted }), source: 'exact' };
}

function anthropicCount(text: string): number | null {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) && typeof v.input_tokens === 'number' ? v.input_tokens : null;
  } catch {
    return null;
  }
}
