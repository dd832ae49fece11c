// POST /v1/messages/count_tokens: the request checked in its dialect and its model in the key's catalog,
// then counted under the key's limits on the model's first deployment. An upstream that speaks Anthropic's wire
// and counts (its provider spec says so) counts exactly; any other upstream, and one that cannot count (unreachable, overloaded, no usable key, an
// endpoint it does not have), leaves a local estimate (the admission tokenizer, see docs/translation.md).
// A count is advisory: an estimate serves the caller better than an error.
import type { IncomingHttpHeaders } from 'node:http';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { patchModel } from '../dialects/json-text.ts';
import { validateMessagesCount } from '../dialects/anthropic-messages/validate.ts';
import { checkAnthropicVersion, DEFAULT_UPSTREAM_VERSION } from '../dialects/anthropic-messages/version.ts';
import { resolveModel } from '../catalog/catalog.ts';
import { estimatePromptTokens } from '../admission/estimate-tokens.ts';
import { upstreamFailure } from '../dialects/upstream-failure.ts';
import { providerSpec } from '../registry.ts';
import { targetQuery } from '../spec/provider.ts';
import { fitBetas } from '../spec/betas.ts';
import { upstreamRequest } from '../upstream/http-provider.ts';
import { countCall, countingDeployment, type CountResult, type CountServices } from './count-call.ts';

/** `readBody` is called once the version header passed: a refused request's body is not read. */
export async function countMessagesTokens(
  gw: CountServices,
  o: { key: KeyRecord; headers: IncomingHttpHeaders; readBody: () => Promise<{ text: string; value: unknown }> },
): Promise<CountResult> {
  const version = checkAnthropicVersion(o.headers);
  const { text, value } = await o.readBody();
  const body = validateMessagesCount(value, version);
  const model = resolveModel(gw.catalog, o.key, body.model, 'anthropic');
  const sent = o.headers['anthropic-version'];
  return gw.admission.whileCounting({ key: o.key, model, body, bodyBytes: text.length, dialect: 'anthropic' }, () =>
    count(gw, {
      deployment: countingDeployment(model),
      value: body,
      text,
      version: typeof sent === 'string' ? sent : DEFAULT_UPSTREAM_VERSION,
      beta: o.headers['anthropic-beta'],
      timeouts: model.timeouts,
    }),
  );
}

const COUNT = targetQuery('count-tokens', 'anthropic', false);

async function count(
  gw: CountServices,
  opts: {
    deployment: DeploymentConfig;
    value: Record<string, unknown>;
    text: string;
    version: string;
    beta: string | string[] | undefined;
    timeouts: { firstByteMs: number; idleMs: number };
  },
): Promise<CountResult> {
  const { deployment, value } = opts;
  const estimate = (): CountResult => ({
    body: JSON.stringify({ input_tokens: estimatePromptTokens(value, { model: deployment.model }) }),
    source: 'estimate',
  });
  const p = deployment.provider;
  const spec = providerSpec(p);
  if (spec.upstreamDialect('anthropic', p, deployment) !== 'anthropic' || !spec.countsTokens(p, 'anthropic'))
    return estimate();
  const apiKey = gw.keyRotation.next(p);
  // Every key of the provider was refused: the generation path has taken it out too.
  if (apiKey === null && p.apiKeys.length > 0) return estimate();
  // Counting passes through: the upstream reads the body under the caller's version.
  const forward: Record<string, string> = { 'anthropic-version': opts.version };
  if (typeof opts.beta === 'string') {
    // Betas the upstream refuses would make it refuse the count; a count is advisory, and the generation
    // request that follows says in x-modelgate-adjusted what it leaves out.
    const rules = spec.betas?.(p, deployment) ?? null;
    const beta = rules === null ? opts.beta : fitBetas(rules, opts.beta).value;
    if (beta !== undefined) forward['anthropic-beta'] = beta;
  }
  const body = patchModel(opts.text, deployment.model) ?? JSON.stringify({ ...value, model: deployment.model });
  const sent = await upstreamRequest(deployment, COUNT, { apiKey, forward, body });
  const r = await countCall(gw, { provider: p.name, what: 'count_tokens', ...sent, timeouts: opts.timeouts });
  if (r.kind === 'counted') return { body: r.text, source: 'exact' };
  if (r.kind === 'estimate') return estimate();
  throw upstreamFailure({
    status: r.status,
    text: r.text,
    upstreamDialect: 'anthropic',
    clientDialect: 'anthropic',
    masker: gw.masker,
  });
}
