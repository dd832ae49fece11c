// A cloud route's body → the /v1/messages body the rest of the gateway serves. Bedrock and Vertex take
// Anthropic's Messages body with the model in the path, the API version as `anthropic_version` in the
// body (`bedrock-2023-05-31`, `vertex-2023-10-16`, or the first-party version newer SDKs copy there), and,
// on Bedrock, the beta flags as an `anthropic_beta` list (Vertex, and Claude Code on either, send the
// `anthropic-beta` header). The result names the model, streams as the path says, and hands the betas
// on as the header an Anthropic-style upstream reads.
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { AnthropicVersion } from '../anthropic-messages/version.ts';

/**
 * The body versions the cloud routes accept: the clouds' own, read as 2023-06-01, and Anthropic's, which
 * newer SDKs copy from their header (each read with its own rules).
 */
const CLOUD_VERSIONS: Readonly<Record<string, AnthropicVersion>> = {
  'bedrock-2023-05-31': '2023-06-01',
  'vertex-2023-10-16': '2023-06-01',
  '2023-06-01': '2023-06-01',
  '2026-10-21': '2026-10-21',
};

/** The anthropic-version a cloud body that names none is read and forwarded under. */
export const CLOUD_MESSAGES_VERSION: AnthropicVersion = '2023-06-01';

export interface CloudMessages {
  body: Record<string, unknown>;
  /** The version the body is read under (and forwarded as `anthropic-version`). */
  version: AnthropicVersion;
  /** `anthropic-version`, and `anthropic-beta` when the caller sent any. */
  forward: Record<string, string>;
  /** What the reshape left out of the caller's request (sent as x-modelgate-adjusted). */
  adjusted?: string[];
}

export function cloudMessagesBody(
  value: unknown,
  at: { model: string; stream: boolean; betaHeader: string | string[] | undefined },
): CloudMessages {
  if (!isObject(value))
    throw new GatewayError('invalid_request', { message: 'The request body must be a JSON object.' });
  const version = value.anthropic_version;
  const read =
    version === undefined ? CLOUD_MESSAGES_VERSION : typeof version === 'string' ? CLOUD_VERSIONS[version] : undefined;
  if (read === undefined)
    throw new GatewayError('invalid_request', {
      message: `anthropic_version: ${JSON.stringify(version)} is not supported; send ${Object.keys(CLOUD_VERSIONS).join(', ')}.`,
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
  const forward: Record<string, string> = { 'anthropic-version': read };
  if (betas.length > 0) forward['anthropic-beta'] = betas.join(',');
  return { body, version: read, forward };
}
