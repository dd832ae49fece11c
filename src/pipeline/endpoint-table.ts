// Every API endpoint the gateway serves: one entry each — method(s), path template, dialect, operation
// name and the story that answers it (generate.ts for generations, endpoints.ts for the short answers).
// A new endpoint is one entry here plus its own folder; the server routes by this table and names
// metrics, logs and traces by its templates.
import type { IncomingMessage } from 'node:http';
import { endpoint, Router, type Endpoint } from '../http/endpoint.ts';
import { geminiAuthenticated, geminiCallOf, geminiListingOf, type GeminiCall } from '../dialects/gemini/routes.ts';
import { bedrockCallOf, vertexCallOf, type BedrockCall, type VertexCall } from '../dialects/anthropic-clouds/paths.ts';
import { validateChatRequest } from '../dialects/openai-chat/validate.ts';
import { validateMessagesRequest } from '../dialects/anthropic-messages/validate.ts';
import { checkAnthropicVersion } from '../dialects/anthropic-messages/version.ts';
import { validateEmbeddingsRequest } from '../dialects/embeddings/validate.ts';
import { validateGeminiCall } from '../dialects/gemini/validate.ts';
import { validateResponsesRequest } from '../dialects/openai-responses/validate.ts';
import { validateCompactRequest } from '../dialects/openai-responses/compact.ts';
import { listModelsBody, modelBody } from '../catalog/list-models.ts';
import { geminiModelBody, geminiModelsBody } from '../catalog/gemini-models.ts';
import { countMessagesTokens } from '../counting/count-messages.ts';
import { countResponsesTokens } from '../counting/count-responses.ts';
import { countGeminiTokens } from '../counting/count-gemini.ts';
import { usageTokenBody } from '../accounting/usage-token.ts';
import { storedResponse } from '../store/stored-response.ts';
import { storedInputItems } from '../store/input-items.ts';
import { countedTurn } from '../conversation/responses-turn.ts';
import { answerConversations } from '../conversation/conversations-api.ts';
import { GatewayError } from '../core/errors.ts';
import { sendError } from '../http/respond.ts';
import { pathOf } from '../http/routes.ts';
import { handleGeneration, type GenerationEndpoint } from './generate.ts';
import { answerShort, type ShortAnswer } from './endpoints.ts';
import {
  bedrockEndpoint,
  converseEndpoint,
  INFERENCE_PROFILES_BODY,
  vertexCountRequest,
  vertexEndpoint,
} from './cloud-routes.ts';
import type { Gateway } from './gateway.ts';

/** The MCP endpoint (and the MCP SDK) loads with the first /mcp request, not with every gateway. */
let mcpEndpoint: Promise<typeof import('../mcp/endpoint.ts')> | undefined;

/** The server answers its own routes (server.ts); their entries only route and name them. */
const SERVED_BY_SERVER = (): Promise<void> => Promise.reject(new Error('served by the server itself'));

/** A path parser run by several entries: the last path's answer is reused, so one path is parsed once. */
function parsedOnce<T>(parse: (path: string) => T | null): (path: string) => T | null {
  let lastPath: string | undefined;
  let last: T | null = null;
  return (path) => {
    if (path !== lastPath) {
      last = parse(path);
      lastPath = path;
    }
    return last;
  };
}

/** The table for one gateway: each entry's handler closes over `gw` once, at start. */
export function endpointTable(gw: Gateway): Endpoint<any>[] {
  /** A generation endpoint whose facts do not depend on its path. */
  const generation =
    (spec: Omit<GenerationEndpoint, 'requestId'>): Endpoint['serve'] =>
    (req, res, _m, requestId) =>
      handleGeneration(gw, req, res, { ...spec, requestId });
  const short =
    <P>(answer: ShortAnswer<P>, pathModel?: (params: P) => string | null | undefined): Endpoint<P>['serve'] =>
    (req, res, match, requestId) =>
      answerShort(gw, { req, res, requestId, match, answer, pathModel });

  /** The Conversations API: one answer for every path, told where in a conversation it is. */
  const conversations = <P>(pathOf: (params: P) => { id: string; items: boolean; itemId: string | null } | null) =>
    short<P>(async ({ key, req, read, now }, params) => ({
      body: await answerConversations(gw.conversations, {
        key,
        method: req.method ?? 'GET',
        path: pathOf(params),
        url: req.url,
        readBody: read,
        now,
      }),
    }));

  const gemini = parsedOnce(geminiCallOf);
  const geminiPath = (path: string) => path.charCodeAt(3) === 98 /* b */ || path.includes(':');
  const geminiWhere = (test: (call: GeminiCall) => boolean) => (path: string) => {
    const call = gemini(path);
    return call !== null && test(call) ? call : null;
  };
  const bedrock = parsedOnce(bedrockCallOf);
  const vertex = parsedOnce(vertexCallOf);
  const cloudPath = (path: string) =>
    path.startsWith('/model/') || path.startsWith('/projects/') || path.startsWith('/v1/projects/');
  /** A Bedrock route: its API (InvokeModel or Converse) and whether it streams tell the entries apart. */
  const bedrockEntry = (
    name: string,
    template: string,
    which: Pick<BedrockCall, 'api' | 'stream'>,
    serve: Endpoint<BedrockCall>['serve'],
  ): Endpoint<BedrockCall> => ({
    name,
    template,
    methods: ['POST'],
    dialect: 'anthropic',
    maybe: cloudPath,
    match: (path) => {
      const call = bedrock(path);
      return call !== null && call.api === which.api && call.stream === which.stream ? call : null;
    },
    serve,
  });
  /** A Vertex AI Claude route, told apart by its method. */
  const vertexEntry = (
    name: string,
    method: VertexCall['method'],
    serve: Endpoint<VertexCall>['serve'],
  ): Endpoint<VertexCall> => ({
    name,
    template: `/v1/projects/{project}/locations/{location}/publishers/anthropic/models/${method === 'count-tokens' ? 'count-tokens:rawPredict' : `{model}:${method}`}`,
    methods: ['POST'],
    dialect: 'anthropic',
    maybe: cloudPath,
    match: (path) => {
      const call = vertex(path);
      return call?.method === method ? call : null;
    },
    serve,
  });
  const invoke: Endpoint<BedrockCall>['serve'] = (req, res, { params }, requestId) =>
    handleGeneration(gw, req, res, bedrockEndpoint(gw.catalog, req, requestId, params));
  const converse: Endpoint<BedrockCall>['serve'] = (req, res, { params }, requestId) =>
    handleGeneration(gw, req, res, converseEndpoint(gw.catalog, gw.config.defaultMaxTokens, requestId, params));
  const rawPredict: Endpoint<VertexCall>['serve'] = (req, res, { params }, requestId) =>
    handleGeneration(gw, req, res, vertexEndpoint(gw.catalog, req, requestId, params));

  const geminiModels: Endpoint<GeminiCall> = {
    name: 'gemini_models',
    template: '/{version}/models',
    methods: ['GET'],
    dialect: 'gemini',
    maybe: geminiPath,
    match: geminiWhere((c) => c.model === null && c.method === null),
    serve: short(({ key }) => ({ body: geminiModelsBody(gw.catalog, key) })),
  };
  const geminiModel: Endpoint<GeminiCall> = {
    name: 'gemini_model',
    template: '/{version}/models/{model}',
    methods: ['GET'],
    dialect: 'gemini',
    maybe: geminiPath,
    match: geminiWhere((c) => c.model !== null && c.method === null),
    serve: short(({ key }, call) => ({ body: geminiModelBody(gw.catalog, key, call.model ?? undefined) })),
  };
  // GET /v1/models[/{id}] from a caller that authenticates the Gemini way is Gemini's listing.
  const geminiCaller = (req: IncomingMessage) => geminiAuthenticated(req.headers, req.url);

  const table: Endpoint<any>[] = [
    endpoint({
      name: 'chat',
      template: '/v1/chat/completions',
      methods: ['POST'],
      dialect: 'openai',
      serve: generation({ dialect: 'openai', endpoint: '/v1/chat/completions', validate: validateChatRequest }),
    }),
    endpoint({
      name: 'messages',
      template: '/v1/messages',
      methods: ['POST'],
      dialect: 'anthropic',
      serve: generation({
        dialect: 'anthropic',
        endpoint: '/v1/messages',
        version: checkAnthropicVersion,
        validate: (body, at) => validateMessagesRequest(body, at.version ?? undefined),
      }),
    }),
    endpoint({
      name: 'count_tokens',
      template: '/v1/messages/count_tokens',
      methods: ['POST'],
      dialect: 'anthropic',
      serve: short(({ key, req, read }) => countMessagesTokens(gw, { key, headers: req.headers, readBody: read })),
    }),
    endpoint({
      name: 'responses',
      template: '/v1/responses',
      methods: ['POST'],
      dialect: 'responses',
      serve: generation({ dialect: 'responses', endpoint: '/v1/responses', validate: validateResponsesRequest }),
    }),
    endpoint({
      name: 'responses_input_tokens',
      template: '/v1/responses/input_tokens',
      methods: ['POST'],
      dialect: 'responses',
      serve: short(async ({ key, read, now }) =>
        countResponsesTokens(gw, {
          key,
          ...(await countedTurn(gw.responses, { keyId: key.id, ...(await read()), now })),
          defaultMaxTokens: gw.config.defaultMaxTokens,
        }),
      ),
    }),
    endpoint({
      name: 'responses_compact',
      template: '/v1/responses/compact',
      methods: ['POST'],
      dialect: 'responses',
      serve: generation({
        dialect: 'responses',
        endpoint: '/v1/responses/compact',
        compact: true,
        validate: validateCompactRequest,
      }),
    }),
    endpoint({
      name: 'response',
      template: '/v1/responses/{id}',
      methods: ['GET', 'DELETE'],
      dialect: 'responses',
      serve: short(async ({ key, req, now }, { id }) => ({
        body: await storedResponse(gw.responses, { key, id, method: req.method ?? 'GET', now }),
      })),
    }),
    endpoint({
      name: 'response_input_items',
      template: '/v1/responses/{id}/input_items',
      methods: ['GET'],
      dialect: 'responses',
      serve: short(async ({ key, req, now }, { id }) => ({
        body: await storedInputItems(gw.responses, { key, id, url: req.url, now }),
      })),
    }),
    endpoint({
      name: 'conversations',
      template: '/v1/conversations',
      methods: ['POST'],
      dialect: 'responses',
      serve: conversations(() => null),
    }),
    endpoint({
      name: 'conversation',
      template: '/v1/conversations/{id}',
      methods: ['GET', 'POST', 'DELETE'],
      dialect: 'responses',
      serve: conversations<{ id: string }>(({ id }) => ({ id, items: false, itemId: null })),
    }),
    endpoint({
      name: 'conversation_items',
      template: '/v1/conversations/{id}/items',
      methods: ['GET', 'POST'],
      dialect: 'responses',
      serve: conversations<{ id: string }>(({ id }) => ({ id, items: true, itemId: null })),
    }),
    endpoint({
      name: 'conversation_item',
      template: '/v1/conversations/{id}/items/{item_id}',
      methods: ['GET', 'DELETE'],
      dialect: 'responses',
      serve: conversations<{ id: string; item_id: string }>(({ id, item_id }) => ({
        id,
        items: true,
        itemId: item_id,
      })),
    }),
    endpoint({
      name: 'embeddings',
      template: '/v1/embeddings',
      methods: ['POST'],
      dialect: 'openai',
      serve: generation({
        dialect: 'openai',
        endpoint: '/v1/embeddings',
        embedding: true,
        validate: validateEmbeddingsRequest,
      }),
    }),
    endpoint({
      name: 'models',
      template: '/v1/models',
      methods: ['GET'],
      dialect: 'openai',
      anthropicCallers: true,
      variant: { when: geminiCaller, endpoint: geminiModels, params: geminiListingOf },
      serve: short(({ key }) => ({ body: listModelsBody(gw.catalog, key) })),
    }),
    {
      name: 'model',
      template: '/v1/models/{id}',
      methods: ['GET'],
      dialect: 'openai',
      anthropicCallers: true,
      variant: { when: geminiCaller, endpoint: geminiModel, params: geminiListingOf },
      // An id may hold a `/` (`org/model`): the rest of the path after the prefix, percent-decoded.
      maybe: (path: string) => path.length > MODELS_PREFIX.length && path.startsWith(MODELS_PREFIX),
      // `/v1/models/{model}:generateContent` is Gemini's, not a model id with a colon.
      match: (path: string) => (gemini(path) !== null ? null : { id: decodedOrNull(path.slice(MODELS_PREFIX.length)) }),
      serve: short<{ id: string | null }>(({ key }, { id }) => ({ body: modelBody(gw.catalog, key, id) })),
    } satisfies Endpoint<{ id: string | null }>,
    endpoint({
      name: 'usage_token',
      template: '/api/usage/token',
      methods: ['GET'],
      dialect: 'openai',
      serve: short(async ({ key, now }) => ({ body: await usageTokenBody(gw, key, now) })),
    }),
    // The bare origin, which clients probe before their first call (Claude Code's `HEAD /`): a plain 200.
    endpoint({
      name: 'root',
      template: '/',
      methods: ['GET'],
      dialect: 'openai',
      own: 'root',
      serve: SERVED_BY_SERVER,
    }),
    endpoint({
      name: 'healthz',
      template: '/healthz',
      methods: ['GET'],
      dialect: 'openai',
      own: 'healthz',
      serve: SERVED_BY_SERVER,
    }),
    endpoint({
      name: 'livez',
      template: '/livez',
      methods: ['GET'],
      dialect: 'openai',
      own: 'livez',
      serve: SERVED_BY_SERVER,
    }),
    endpoint({
      name: 'readyz',
      template: '/readyz',
      methods: ['GET'],
      dialect: 'openai',
      own: 'readyz',
      serve: SERVED_BY_SERVER,
    }),
    endpoint({
      name: 'metrics',
      template: '/metrics',
      methods: ['GET'],
      dialect: 'openai',
      own: 'metrics',
      serve: SERVED_BY_SERVER,
    }),
    endpoint({
      name: 'mcp',
      template: '/mcp',
      // POST a message; GET a session's notification stream; DELETE a session (Streamable HTTP).
      methods: ['POST', 'GET', 'DELETE'],
      dialect: 'openai',
      serve: (req, res, _m, requestId) =>
        (mcpEndpoint ??= import('../mcp/endpoint.ts')).then((m) => m.handleMcp(gw, req, res, requestId)),
    }),
    // Bedrock's ListInferenceProfiles, which Claude Code's Bedrock mode asks for at start.
    endpoint({
      name: 'bedrock_inference_profiles',
      template: '/inference-profiles',
      methods: ['GET'],
      dialect: 'anthropic',
      serve: short(() => ({ body: INFERENCE_PROFILES_BODY })),
    }),
    // Anthropic's cloud routes (Claude Code's Bedrock and Vertex modes, the clouds' SDKs): Messages underneath.
    bedrockEntry('bedrock_invoke', '/model/{model}/invoke', { api: 'invoke', stream: false }, invoke),
    bedrockEntry(
      'bedrock_invoke_stream',
      '/model/{model}/invoke-with-response-stream',
      { api: 'invoke', stream: true },
      invoke,
    ),
    // Bedrock's Converse API, so applications written against the AWS SDK reach every model.
    bedrockEntry('bedrock_converse', '/model/{model}/converse', { api: 'converse', stream: false }, converse),
    bedrockEntry(
      'bedrock_converse_stream',
      '/model/{model}/converse-stream',
      { api: 'converse', stream: true },
      converse,
    ),
    vertexEntry('vertex_raw_predict', 'rawPredict', rawPredict),
    vertexEntry('vertex_stream_raw_predict', 'streamRawPredict', rawPredict),
    vertexEntry(
      'vertex_count_tokens',
      'count-tokens',
      short<VertexCall>(({ key, req, read }) =>
        countMessagesTokens(gw, { key, ...vertexCountRequest(gw.catalog, req.headers, read) }),
      ),
    ),
    // Gemini's native API: one path parse (gemini/routes.ts) tells its entries apart.
    {
      name: 'gemini_generate',
      template: '/{version}/models/{model}:generateContent',
      methods: ['POST'],
      dialect: 'gemini',
      maybe: geminiPath,
      match: geminiWhere((c) => c.method === 'generateContent' || c.method === 'streamGenerateContent'),
      // A template, not the URL: the model is the row's own column, and a `?key=` never reaches a row or a label.
      serve: (req, res, { params: call }, requestId) =>
        handleGeneration(gw, req, res, {
          dialect: 'gemini',
          requestId,
          endpoint: `/${call.version}/models/{model}:${call.method}`,
          gemini: call,
          validate: (body, at) => validateGeminiCall(body, call, at.url),
        }),
    } satisfies Endpoint<GeminiCall>,
    {
      name: 'gemini_count',
      template: '/{version}/models/{model}:countTokens',
      methods: ['POST'],
      dialect: 'gemini',
      maybe: geminiPath,
      match: geminiWhere((c) => c.method === 'countTokens'),
      serve: short<GeminiCall>(
        async ({ key, read }, call) => countGeminiTokens(gw, { key, call, value: (await read()).value }),
        (call) => call.model,
      ),
    } satisfies Endpoint<GeminiCall>,
    geminiModels,
    geminiModel,
    {
      name: 'gemini_unknown',
      template: '/{version}/models/{model}:{method}',
      methods: ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'],
      dialect: 'gemini',
      maybe: geminiPath,
      match: geminiWhere((c) => c.method === ''),
      serve: async (req, res, _m, requestId) => {
        req.resume();
        sendError(res, {
          dialect: 'gemini',
          error: new GatewayError('not_found', {
            message: `No route for ${req.method} ${pathOf(req.url)}. The gateway serves Gemini's models/{model}:generateContent, :streamGenerateContent and :countTokens, and GET models.`,
          }),
          requestId,
        });
      },
    } satisfies Endpoint<GeminiCall>,
  ];
  return table;
}

const MODELS_PREFIX = '/v1/models/';

function decodedOrNull(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The router over one gateway's table. */
export function routerFor(gw: Gateway): Router {
  return new Router(endpointTable(gw));
}
