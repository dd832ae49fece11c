// kind azure: Azure OpenAI. `base_url` is the resource's endpoint (`https://NAME.openai.azure.com`); a
// deployment's `model` is the Azure deployment name. `api_version: v1` (the default) uses the v1 paths
// (`/openai/v1/chat/completions`, the deployment named in the body, as OpenAI's own API); a dated version
// (`2024-10-21`) uses the deployment paths (`/openai/deployments/{deployment}/chat/completions?api-version=…`;
// Responses at `/openai/responses?api-version=…`, the deployment in the body, as Azure serves it).
// Credentials: `api_key` (sent as `api-key`), or `entra_id` (a service principal's client secret), or
// neither: DefaultAzureCredential. It speaks OpenAI's wire: what kind openai passes through passes through.
import { z } from 'zod';
import type { ProviderConfig } from '../../core/config-types.ts';
import { baseUrlPath, type ProviderSpec, type TargetQuery } from '../../spec/provider.ts';
import { jsonHeaders, noTarget, splitBaseUrl } from '../json-headers.ts';
import { apisKey, DEFAULT_APIS, type OpenAIApi, openaiOperationPath, openaiWireDialect } from '../openai/index.ts';
import { type EntraSettings, entraCredential } from './credential.ts';
import { EntraToken } from './entra-token.ts';

export interface AzureOptions {
  /** `v1`, or a dated API version sent as `api-version`. */
  apiVersion: string;
  apis: readonly OpenAIApi[];
  /** The Entra ID token source when the provider has no `api_key`; null with a key. */
  entra: EntraToken | null;
}

const entraKeys = z.strictObject({
  tenant_id: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  authority_host: z.url({ protocol: /^https$/ }).optional(),
});

const optionsOf = (p: ProviderConfig): AzureOptions => p.options as AzureOptions;

/** Where each operation goes under the resource's endpoint. */
function azurePath(prefix: string, deployment: string, o: AzureOptions, query: TargetQuery): string {
  if (o.apiVersion === 'v1') return `${prefix}/openai/v1${openaiOperationPath('azure', query)}`;
  const version = `api-version=${encodeURIComponent(o.apiVersion)}`;
  switch (query.operation) {
    case 'chat':
    case 'embeddings':
      return `${prefix}/openai/deployments/${encodeURIComponent(deployment)}${openaiOperationPath('azure', query)}?${version}`;
    case 'responses':
    case 'compact':
      return `${prefix}/openai${openaiOperationPath('azure', query)}?${version}`;
  }
  return noTarget('azure', `${query.operation} (${query.dialect}) with api_version ${o.apiVersion}`);
}

export const azureProvider: ProviderSpec<AzureOptions> = {
  kind: 'azure',
  priceCatalogue: 'azure',
  configKeys: {
    api_version: z
      .string()
      .regex(/^(v1|\d{4}-\d{2}-\d{2}(-preview)?)$/, 'must be v1 or a dated version such as 2024-10-21')
      .optional(),
    apis: apisKey,
    entra_id: entraKeys.optional(),
  },
  requiresBaseUrl: true,
  options(raw, fail) {
    const entra = raw.entra_id as z.infer<typeof entraKeys> | undefined;
    const keyed = raw.api_key !== undefined || raw.api_keys !== undefined;
    if (entra !== undefined && keyed) fail('entra_id', 'give api_key or entra_id, not both');
    const settings: EntraSettings | null =
      entra === undefined
        ? null
        : {
            tenantId: entra.tenant_id,
            clientId: entra.client_id,
            clientSecret: entra.client_secret,
            ...(entra.authority_host === undefined ? {} : { authorityHost: entra.authority_host }),
          };
    return {
      apiVersion: (raw.api_version as string | undefined) ?? 'v1',
      apis: (raw.apis as OpenAIApi[] | undefined) ?? DEFAULT_APIS,
      entra: keyed ? null : new EntraToken(() => entraCredential(settings)),
    };
  },
  upstreamDialect: (endpoint, p) => openaiWireDialect(endpoint, optionsOf(p).apis),
  embeddingsDialect: (p) => (optionsOf(p).apis.includes('embeddings') ? 'openai' : null),
  noEmbeddingsReason: () => "its `apis` leaves out 'embeddings'",
  keepsResponses: true,
  countsTokens: () => false,
  target(p, deployment, query) {
    const { origin, prefix } = splitBaseUrl(p.baseUrl);
    return { origin, path: azurePath(prefix, deployment.model, optionsOf(p), query) };
  },
  headers(p, ctx) {
    const headers = jsonHeaders(p);
    if (ctx.apiKey) headers['api-key'] = ctx.apiKey;
    return headers;
  },
  sign(input) {
    const entra = optionsOf(input.provider).entra;
    if (entra === null) return;
    const header = entra.header();
    if (typeof header === 'string') {
      input.headers.authorization = header;
      return;
    }
    return header.then((value) => {
      input.headers.authorization = value;
    });
  },
  system: 'azure.ai.openai',
  generates: (p) => optionsOf(p).apis.includes('chat') || optionsOf(p).apis.includes('responses'),
  check(p) {
    const path = baseUrlPath(p.baseUrl);
    if (path === null || path === '') return [];
    return [
      {
        level: 'error',
        key: 'base_url',
        message: `${p.baseUrl} has a path: kind azure takes the resource's endpoint (https://NAME.openai.azure.com) and adds /openai/… itself, so every request would go to a path that does not exist`,
      },
    ];
  },
};
