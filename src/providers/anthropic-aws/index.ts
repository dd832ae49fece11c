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
import { AWS_CONFIG_KEYS, type AwsSigner, awsSignerOf } from '../aws/sigv4.ts';
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

export const anthropicAwsProvider: ProviderSpec<AnthropicAwsOptions> = {
  ...anthropicProvider,
  kind: 'anthropic-aws',
  system: 'aws.anthropic',
  configKeys: {
    ...anthropicProvider.configKeys,
    ...AWS_CONFIG_KEYS,
    workspace_id: z.string().min(1),
  },
  requiresBaseUrl: false,
  defaultBaseUrl: (raw) => origin(raw.region as string),
  options(raw, fail) {
    const region = raw.region as string;
    return {
      version: raw.anthropic_version as string | undefined,
      region,
      workspaceId: raw.workspace_id as string,
      signer: awsSignerOf(raw, fail, ANTHROPIC_AWS_SERVICE, 'a workspace API key'),
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
