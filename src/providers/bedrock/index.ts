// kind bedrock: Amazon Bedrock Runtime. A deployment's `model` is a Bedrock model id or inference-profile
// id (`anthropic.claude-sonnet-4-5-20250929-v1:0`, `us.anthropic.claude-…`, an ARN), escaped into the path.
// Claude models speak Anthropic's Messages wire through InvokeModel / InvokeModelWithResponseStream: the
// body without `model` or `stream` (the path names both), `anthropic_version: "bedrock-2023-05-31"` and the
// caller's `anthropic-beta` (fitted to what Bedrock takes) as the body's `anthropic_beta` list; streamed
// replies come in AWS's event-stream framing, each of Anthropic's events in a base64 `chunk`. Every other
// model speaks Converse / ConverseStream, a wire no caller speaks: its requests go through the hub with
// Converse as the upstream side (`upstreamSide`), the query still Anthropic's generation one.
// `region` names the Bedrock region (the host, and the SigV4 scope); `base_url` replaces the host.
// Credentials: `api_key` (a Bedrock API key, sent as a Bearer token), or `aws_access_key_id` and
// `aws_secret_access_key` (and `aws_session_token`), or none: AWS's standard chain, its credentials kept
// until shortly before they expire. Each request is signed over its body and date; the secret itself is
// never sent, and keys go nowhere but into the signature.
import type { DeploymentConfig, ProviderConfig } from '../../core/config-types.ts';
import { isObject } from '../../core/json.ts';
import type { BetaRules, ProviderSpec, WireBodyInput } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl } from '../json-headers.ts';
import { BEDROCK_ANTHROPIC_VERSION, cloudAnthropicBody } from './anthropic-body.ts';
import { BEDROCK_CLAUDE_BETAS } from './betas.ts';
import { converseUpstream } from './converse-side.ts';
import { readBedrockError } from './errors.ts';
import { BedrockFrameDecoder } from './frames.ts';
import { AWS_CONFIG_KEYS, type AwsSigner, awsSignerOf } from '../aws/sigv4.ts';
import { bedrockOrigin, bedrockPath, isBedrockClaude } from './urls.ts';

export interface BedrockOptions {
  region: string;
  origin: string;
  prefix: string;
  /** The SigV4 signer; null when the provider has an `api_key` (a Bearer token instead). */
  signer: AwsSigner | null;
}

const optionsOf = (p: ProviderConfig): BedrockOptions => p.options as BedrockOptions;

const isClaude = (d: DeploymentConfig | undefined): boolean => d !== undefined && isBedrockClaude(d.model);

/** InvokeModel's body for an Anthropic Messages body; a Converse body goes as the hub encoded it. */
function invokeBody(input: WireBodyInput): string | Buffer {
  if (input.query.dialect !== 'anthropic' || !isClaude(input.deployment)) return input.body;
  const parsed: unknown = JSON.parse(typeof input.body === 'string' ? input.body : input.body.toString('utf8'));
  if (!isObject(parsed)) return input.body;
  return cloudAnthropicBody(parsed, BEDROCK_ANTHROPIC_VERSION, input.forward['anthropic-beta'], false);
}

const NO_BETAS: BetaRules = { accepted: new Set() };

export const bedrockProvider: ProviderSpec<BedrockOptions> = {
  kind: 'bedrock',
  priceCatalogue: 'aws-bedrock',
  system: 'aws.bedrock',
  configKeys: {
    ...AWS_CONFIG_KEYS,
  },
  requiresBaseUrl: false,
  defaultBaseUrl: (raw) => bedrockOrigin(raw.region as string),
  options(raw, fail) {
    const region = raw.region as string;
    const { origin, prefix } = splitBaseUrl((raw.base_url as string | undefined) ?? bedrockOrigin(region));
    return {
      region,
      origin,
      prefix,
      signer: awsSignerOf(raw, fail, 'bedrock', 'a Bedrock API key'),
    };
  },
  // Claude speaks Anthropic's wire; the other models Converse (upstreamSide), reached by the same query.
  upstreamDialect: () => 'anthropic',
  upstreamSide: (_p, d) => (isClaude(d) ? null : converseUpstream),
  embeddingsDialect: () => null,
  noEmbeddingsReason: () => 'kind bedrock serves generation only',
  keepsResponses: false,
  countsTokens: () => false,
  target(p, d, query) {
    const o = optionsOf(p);
    if (query.operation !== 'messages' || query.dialect !== 'anthropic')
      return noTarget('bedrock', `${query.operation} (${query.dialect}) for ${d.model}`);
    const op = isClaude(d)
      ? query.stream
        ? 'invoke-with-response-stream'
        : 'invoke'
      : query.stream
        ? 'converse-stream'
        : 'converse';
    return { origin: o.origin, path: bedrockPath(o.prefix, d.model, op) };
  },
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    return headers;
  },
  wireBody: invokeBody,
  // Converse has no beta flags: a caller's are all left out, and said.
  betas: (_p, d) => (isClaude(d) ? BEDROCK_CLAUDE_BETAS : NO_BETAS),
  frames: (_p, d) => new BedrockFrameDecoder(isClaude(d)),
  readError: readBedrockError,
  sign(input) {
    const signer = optionsOf(input.provider).signer;
    if (signer === null) return;
    const { target, headers } = input;
    return signer
      .sign({ method: 'POST', url: target.origin + target.path, headers, body: input.body })
      .then((signed) => {
        Object.assign(headers, signed);
      });
  },
  check(p) {
    const path = new URL(p.baseUrl).pathname.replace(/\/+$/, '');
    if (!/\/model(\/|$)/.test(path)) return [];
    return [
      {
        level: 'error',
        key: 'base_url',
        message: `${p.baseUrl} ends in /model: kind bedrock takes the endpoint's origin (https://bedrock-runtime.us-east-1.amazonaws.com) and adds /model/{id}/… itself`,
      },
    ];
  },
};
