// Anthropic's cloud routes as gateway ingress, so Claude Code in its Bedrock or Vertex mode (and the
// clouds' Anthropic SDKs) only change a base URL: Bedrock's InvokeModel and Vertex's rawPredict are
// /v1/messages underneath (the body reshaped, the model from the path and found among the gateway's
// names), with the same keys, budgets, limits and usage rows. Bedrock answers its streams in AWS's event
// stream and its errors in Bedrock's shape; Vertex's answers are Anthropic's own.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Catalog } from '../catalog/catalog.ts';
import { renderBedrockError } from '../dialects/anthropic-clouds/errors.ts';
import { gatewayModelOf } from '../dialects/anthropic-clouds/model-id.ts';
import type { BedrockCall, VertexCall } from '../dialects/anthropic-clouds/paths.ts';
import { CLOUD_MESSAGES_VERSION, cloudMessagesBody } from '../dialects/anthropic-clouds/request.ts';
import { validateMessagesRequest } from '../dialects/anthropic-messages/validate.ts';
import { MESSAGES_INGRESS_SIDES } from '../registry.ts';
import { clientAsMessages, messagesReplyAs } from '../translate/client-over-messages.ts';
import type { HubRequest } from '../spec/form.ts';
import type { GenerationEndpoint } from './generate.ts';
import { BEDROCK_EVENT_STREAM, converseEventStream } from './reply-framing.ts';

const validate: GenerationEndpoint['validate'] = (body, at) =>
  validateMessagesRequest(body, at.version ?? CLOUD_MESSAGES_VERSION);

const known = (catalog: Catalog) => (name: string) => catalog.resolve(name) !== undefined;

/** POST /model/{model}/invoke and /invoke-with-response-stream. */
export function bedrockEndpoint(
  catalog: Catalog,
  req: IncomingMessage,
  requestId: string,
  call: BedrockCall,
): GenerationEndpoint {
  const model = gatewayModelOf(call.model, known(catalog));
  return {
    dialect: 'anthropic',
    requestId,
    endpoint: call.stream ? '/model/{model}/invoke-with-response-stream' : '/model/{model}/invoke',
    cloud: {
      reshape: (value) =>
        cloudMessagesBody(value, { model, stream: call.stream, betaHeader: req.headers['anthropic-beta'] }),
    },
    framing: call.stream ? BEDROCK_EVENT_STREAM : undefined,
    renderError: renderBedrockError,
    validate,
  };
}

/**
 * POST /model/{model}/converse and /converse-stream: Bedrock's Converse API, so applications written
 * against the AWS SDK reach every model with an endpoint override. The body goes through the hub into a
 * /v1/messages body, and the Messages reply back into Converse's (streamed: ConverseStream's events in
 * AWS's event stream).
 */
export function converseEndpoint(
  catalog: Catalog,
  defaultMaxTokens: number,
  requestId: string,
  call: BedrockCall,
): GenerationEndpoint {
  const model = gatewayModelOf(call.model, known(catalog));
  const client = MESSAGES_INGRESS_SIDES.converse;
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  // Set by the reshape, before the reply is written.
  let request: HubRequest | null = null;
  const replyAt = () => ({ request: request!, model: call.model, latencyMs });
  return {
    dialect: 'anthropic',
    requestId,
    endpoint: call.stream ? '/model/{model}/converse-stream' : '/model/{model}/converse',
    cloud: {
      reshape(value) {
        const shaped = clientAsMessages(client, value, { model, stream: call.stream, defaultMaxTokens });
        request = shaped.request;
        return shaped;
      },
    },
    framing: call.stream ? converseEventStream(client, replyAt) : undefined,
    reshapeReply: call.stream ? undefined : (text) => messagesReplyAs(client, text, replyAt()),
    renderError: renderBedrockError,
    validate,
  };
}

/** POST …/publishers/anthropic/models/{model}:rawPredict and :streamRawPredict. */
export function vertexEndpoint(
  catalog: Catalog,
  req: IncomingMessage,
  requestId: string,
  call: VertexCall,
): GenerationEndpoint {
  const stream = call.method === 'streamRawPredict';
  const model = gatewayModelOf(call.model, known(catalog));
  return {
    dialect: 'anthropic',
    requestId,
    endpoint: `/v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:${call.method}`,
    cloud: {
      reshape: (value) => cloudMessagesBody(value, { model, stream, betaHeader: req.headers['anthropic-beta'] }),
    },
    validate,
  };
}

/**
 * Vertex's count-tokens:rawPredict as /v1/messages/count_tokens: the body names the model (a cloud id
 * is found as on the other routes) and carries its version as a field.
 */
export function vertexCountRequest(
  catalog: Catalog,
  headers: IncomingHttpHeaders,
  read: () => Promise<{ text: string; value: unknown }>,
): { headers: IncomingHttpHeaders; readBody: () => Promise<{ text: string; value: unknown }> } {
  return {
    headers: { ...headers, 'anthropic-version': CLOUD_MESSAGES_VERSION },
    readBody: async () => {
      // Counting reads the body under 2023-06-01 whatever it names: a count has no sampling to refuse.
      const { value } = await read();
      const named = (value as { model?: unknown } | null)?.model;
      const model = typeof named === 'string' ? gatewayModelOf(named, known(catalog)) : '';
      const { body } = cloudMessagesBody(value, { model, stream: false, betaHeader: undefined });
      if (typeof named !== 'string') delete body.model;
      const text = JSON.stringify(body);
      return { text, value: body };
    },
  };
}

/**
 * GET /inference-profiles (Bedrock's ListInferenceProfiles), which Claude Code's Bedrock mode asks for at
 * start: an empty list. The gateway's models are named as they are, or by the first-party name inside a
 * Bedrock id, so no profile is needed to reach them.
 */
export const INFERENCE_PROFILES_BODY = JSON.stringify({ inferenceProfileSummaries: [] });
