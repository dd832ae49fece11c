// A cloud route's body → the /v1/messages body the rest of the gateway serves. Bedrock and Vertex take
// Anthropic's Messages body with the model in the path, the API version as `anthropic_version` in the
// body (`bedrock-2023-05-31`, `vertex-2023-10-16`, or the first-party version newer SDKs copy there), and,
// on Bedrock, the beta flags as an `anthropic_beta` list (Vertex, and Claude Code on either, send the
// `anthropic-beta` header). The result names the model, streams as the path says, and hands the betas
// on as the header an Anthropic-style upstream reads.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { AnthropicVersion } from '../anthropic-messages/version.ts';

/** The body versions the cloud routes accept: the clouds' own and Anthropic's. */
const CLOUD_VERSIONS: ReadonlySet<string> = new Set(['bedrock-2023-05-31', 'vertex-2023-10-16', '2023-06-01']);

/** The anthropic-version the reshaped body is read and forwarded under. */
export const CLOUD_MESSAGES_VERSION: AnthropicVersion = '2023-06-01';

export interface CloudMessages {
  body: Record<string, unknown>;
  /** `anthropic-version`, and `anthropic-beta` when the caller sent any. */
  forward: Record<string, string>;
}

export function cloudMessagesBody(
  value: unknown,
  at: { model: string; stream: boolean; betaHeader: string | string[] | undefined },
): CloudMessages {
  if (!isObject(value))
    throw new GatewayError('invalid_request', { message: 'The request body must be a JSON object.' });
  const version = value.anthropic_version;
  if (version !== undefined && (typeof version !== 'string' || !CLOUD_VERSIONS.has(version)))
    throw new GatewayError('invalid_request', {
      message: `anthropic_version: ${JSON.stringify(version)} is not supported; send ${[...CLOUD_VERSIONS].join(', ')}.`,
      param: 'anthropic_version',
    });
  const betas: string[] = [];
  const header = Array.isArray(at.betaHeader) ? at.betaHeader.join(',') : at.betaHeader;
  if (header !== undefined) for (const b of header.split(',')) if (b.trim() !== '') betas.push(b.trim());
  const listed = value.anthropic_beta;
  if (listed !== undefined) {
    if (!Array.isArray(listed) || !listed.every((b) => typeof b === 'string'))
      throw new GatewayError('invalid_request', {
        message: 'anthropic_beta: must be a list of strings.',
        param: 'anthropic_beta',
      });
    for (const b of listed) if (!betas.includes(b)) betas.push(b);
  }
  const body: Record<string, unknown> = { model: at.model };
  for (const key of Object.keys(value)) {
    if (key === 'anthropic_version' || key === 'anthropic_beta' || key === 'model' || key === 'stream') continue;
    body[key] = value[key];
  }
  if (at.stream) body.stream = true;
  const forward: Record<string, string> = { 'anthropic-version': CLOUD_MESSAGES_VERSION };
  if (betas.length > 0) forward['anthropic-beta'] = betas.join(',');
  return { body, forward };
}
