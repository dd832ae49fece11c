// Anthropic's Messages body for the clouds that host Claude under their own paths: Bedrock's InvokeModel
// (`anthropic_version: "bedrock-2023-05-31"`) and Vertex's rawPredict (`"vertex-2023-10-16"`). The model
// is in the path, so the body loses `model`; the beta flags a first-party caller sends as the
// `anthropic-beta` header travel as the body's `anthropic_beta` list; `stream` stays in the body only where
// the cloud reads it (Vertex), since Bedrock names streaming in the path.
// InvokeModelWithResponseStream wraps each of Anthropic's SSE events in an event-stream `chunk` whose
// payload is `{"bytes": base64(event JSON)}`; `anthropicFrameOfChunk` turns one back into the SSE event.
import { unwrapChunk } from '../aws/event-stream.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * The cloud body for an Anthropic Messages body. `betaHeader`: the caller's `anthropic-beta` header
 * (comma-separated), merged with any `anthropic_beta` the body already has.
 */
export function cloudAnthropicBody(
  body: Record<string, unknown>,
  version: string,
  betaHeader: string | undefined,
  keepStream: boolean,
): string {
  const out: Record<string, unknown> = { anthropic_version: version };
  for (const key of Object.keys(body)) {
    if (key === 'model' || key === 'anthropic_version' || key === 'anthropic_beta') continue;
    if (key === 'stream' && !keepStream) continue;
    out[key] = body[key];
  }
  const betas: string[] = Array.isArray(body.anthropic_beta)
    ? body.anthropic_beta.filter((b): b is string => typeof b === 'string')
    : [];
  if (betaHeader !== undefined)
    for (const b of betaHeader.split(',')) {
      const v = b.trim();
      if (v !== '' && !betas.includes(v)) betas.push(v);
    }
  if (betas.length > 0) out.anthropic_beta = betas;
  return JSON.stringify(out);
}

/** One Anthropic SSE event (its `type` as the event name, its JSON as data) from an InvokeModel stream chunk. */
export function anthropicFrameOfChunk(data: string): { event: string | undefined; data: string } {
  const inner = unwrapChunk(data);
  const parsed = JSON.parse(inner) as { type?: unknown };
  return { event: typeof parsed.type === 'string' ? parsed.type : undefined, data: inner };
}
