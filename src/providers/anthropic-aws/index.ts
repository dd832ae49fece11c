// kind anthropic-aws: Claude Platform on AWS, Anthropic's Messages API run by Anthropic inside an AWS
// account. The wire is Anthropic's own (`/v1/messages`, `anthropic-version` and `anthropic-beta` as
// headers, every beta the first-party API takes), so Messages callers pass through as bytes and the others
// are translated as for kind anthropic. What differs is where and how: the regional host
// (`https://aws-external-anthropic.{region}.api.aws`, `base_url` replaces it), the workspace every request
// names (`workspace_id` → `anthropic-workspace-id`), and the credential: a workspace API key as a Bearer
// token, or else each request signed with SigV4 (service `aws-external-anthropic`) from
// `aws_access_key_id` / `aws_secret_access_key` / `aws_session_token` or AWS's standard chain.
import { z } from 'zod';
import type { ProviderConfig } from '../../core/config-types.ts';
import type { ProviderSpec } from '../../spec/provider.ts';
import { anthropicProvider, type AnthropicOptions } from '../anthropic/index.ts';
import { AwsSigner, credentialSource } from '../bedrock/sigv4.ts';
import { originOnly } from '../json-headers.ts';

export const ANTHROPIC_AWS_SERVICE = 'aws-external-anthropic';

export interface AnthropicAwsOptions extends AnthropicOptions {
  region: string;
  workspaceId: string;
  /** The SigV4 signer; null when the provider has an `api_key` (a Bearer token instead). */
  signer: AwsSigner | null;
}

const optionsOf = (p: ProviderConfig): AnthropicAwsOptions => p.options as AnthropicAwsOptions;

const origin = (region: string): string => `https://${ANTHROPIC_AWS_SERVICE}.${region}.api.aws`;

const secret = z.string().min(1);

export const anthropicAwsProvider: ProviderSpec<AnthropicAwsOptions> = {
  ...anthropicProvider,
  kind: 'anthropic-aws',
  system: 'aws.anthropic',
  configKeys: {
    ...anthropicProvider.configKeys,
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as us-west-2'),
    workspace_id: z.string().min(1),
    aws_access_key_id: secret.optional(),
    aws_secret_access_key: secret.optional(),
    aws_session_token: secret.optional(),
  },
  requiresBaseUrl: false,
  defaultBaseUrl: (raw) => origin(raw.region as string),
  options(raw, fail) {
    const region = raw.region as string;
    const keyId = raw.aws_access_key_id as string | undefined;
    const secretKey = raw.aws_secret_access_key as string | undefined;
    const sessionToken = raw.aws_session_token as string | undefined;
    if ((keyId === undefined) !== (secretKey === undefined))
      fail(
        keyId === undefined ? 'aws_access_key_id' : 'aws_secret_access_key',
        'give aws_access_key_id and aws_secret_access_key together, or neither (the standard AWS chain)',
      );
    if (sessionToken !== undefined && keyId === undefined)
      fail('aws_session_token', 'goes with aws_access_key_id and aws_secret_access_key');
    const keyed = raw.api_key !== undefined || raw.api_keys !== undefined;
    if (keyed && keyId !== undefined)
      fail('api_key', 'give api_key (a workspace API key) or AWS access keys, not both');
    return {
      version: raw.anthropic_version as string | undefined,
      region,
      workspaceId: raw.workspace_id as string,
      signer: keyed
        ? null
        : new AwsSigner(
            region,
            ANTHROPIC_AWS_SERVICE,
            credentialSource({
              aws_access_key_id: keyId,
              aws_secret_access_key: secretKey,
              aws_session_token: sessionToken,
            }),
          ),
    };
  },
  headers(p, ctx) {
    // Anthropic's headers without its x-api-key: the key goes as a Bearer token here.
    const headers = anthropicProvider.headers(p, { apiKey: null, forward: ctx.forward });
    headers['anthropic-workspace-id'] = optionsOf(p).workspaceId;
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    return headers;
  },
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
  check: (p) => originOnly(p, 'anthropic-aws', origin('us-west-2'), '/v1/messages'),
};
