// Exact path routing (SPEC §4.1, DESIGN.md): no trailing slash, no case folding; a query string is ignored.
import type { Dialect } from '../core/dialect.ts';
import { bedrockCallOf, vertexCallOf } from '../dialects/anthropic-clouds/paths.ts';
import { geminiCallOf } from '../dialects/gemini/routes.ts';

export type RouteName =
  | 'chat'
  | 'messages'
  | 'count_tokens'
  | 'models'
  | 'model'
  | 'usage_token'
  | 'healthz'
  | 'livez'
  | 'readyz'
  | 'metrics'
  | 'embeddings'
  | 'responses'
  | 'responses_input_tokens'
  | 'responses_compact'
  | 'response'
  | 'response_input_items'
  | 'conversations'
  | 'conversation'
  | 'conversation_items'
  | 'conversation_item'
  | 'gemini_generate'
  | 'gemini_count'
  | 'gemini_models'
  | 'gemini_model'
  | 'gemini_unknown'
  | 'bedrock_invoke'
  | 'bedrock_invoke_stream'
  | 'bedrock_inference_profiles'
  | 'vertex_raw_predict'
  | 'vertex_stream_raw_predict'
  | 'vertex_count_tokens'
  | 'mcp';

export interface Route {
  name: RouteName;
  /** The path as traces name it (OpenTelemetry's http.route): parameters in braces, never a caller's value. */
  template: string;
  method: string;
  /** Further methods the path answers (GET and DELETE /v1/responses/{id}). */
  alsoMethod?: string;
  /** Yet more methods (GET, POST and DELETE /v1/conversations/{id}). */
  alsoMethods?: readonly string[];
  dialect: Dialect;
}

/** The exact paths, each its own template. */
const EXACT: Route[] = [
  { name: 'chat', template: '/v1/chat/completions', method: 'POST', dialect: 'openai' },
  { name: 'messages', template: '/v1/messages', method: 'POST', dialect: 'anthropic' },
  { name: 'count_tokens', template: '/v1/messages/count_tokens', method: 'POST', dialect: 'anthropic' },
  { name: 'responses', template: '/v1/responses', method: 'POST', dialect: 'responses' },
  { name: 'responses_input_tokens', template: '/v1/responses/input_tokens', method: 'POST', dialect: 'responses' },
  { name: 'responses_compact', template: '/v1/responses/compact', method: 'POST', dialect: 'responses' },
  { name: 'models', template: '/v1/models', method: 'GET', dialect: 'openai' },
  { name: 'conversations', template: '/v1/conversations', method: 'POST', dialect: 'responses' },
  { name: 'embeddings', template: '/v1/embeddings', method: 'POST', dialect: 'openai' },
  { name: 'usage_token', template: '/api/usage/token', method: 'GET', dialect: 'openai' },
  { name: 'healthz', template: '/healthz', method: 'GET', dialect: 'openai' },
  { name: 'livez', template: '/livez', method: 'GET', dialect: 'openai' },
  { name: 'readyz', template: '/readyz', method: 'GET', dialect: 'openai' },
  { name: 'metrics', template: '/metrics', method: 'GET', dialect: 'openai' },
  { name: 'mcp', template: '/mcp', method: 'POST', alsoMethods: ['GET', 'DELETE'], dialect: 'openai' },
  // Bedrock's ListInferenceProfiles, which Claude Code's Bedrock mode asks for at start.
  { name: 'bedrock_inference_profiles', template: '/inference-profiles', method: 'GET', dialect: 'anthropic' },
];
const ROUTES = new Map(EXACT.map((r) => [r.template, r]));

export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  // RFC 9112 §3.2.2: a server must accept the absolute form (`POST http://host/v1/...`), which clients
  // configured with the gateway as a forward proxy send.
  if (url.charCodeAt(0) !== 47 /* / */) url = absolutePath(url);
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The path of an absolute-form target; other targets (`*`, authority form) are returned as they are. */
function absolutePath(url: string): string {
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  if (m === null) return url;
  const rest = url.slice(m[0].length);
  return rest === '' || rest.charCodeAt(0) === 63 /* ? */ ? `/${rest}` : rest;
}

const MODELS_PREFIX = '/v1/models/';
/** GET /v1/models/{id}: both SDKs' `models.retrieve`. */
const MODEL_ROUTE: Route = { name: 'model', template: '/v1/models/{id}', method: 'GET', dialect: 'openai' };

const GEMINI_ROUTES = {
  generate: {
    name: 'gemini_generate',
    template: '/{version}/models/{model}:generateContent',
    method: 'POST',
    dialect: 'gemini',
  },
  count: { name: 'gemini_count', template: '/{version}/models/{model}:countTokens', method: 'POST', dialect: 'gemini' },
  models: { name: 'gemini_models', template: '/{version}/models', method: 'GET', dialect: 'gemini' },
  model: { name: 'gemini_model', template: '/{version}/models/{model}', method: 'GET', dialect: 'gemini' },
  unknown: {
    name: 'gemini_unknown',
    template: '/{version}/models/{model}:{method}',
    method: 'POST',
    dialect: 'gemini',
  },
} as const satisfies Record<string, Route>;
/** Anthropic's cloud routes (Claude Code's Bedrock and Vertex modes, the clouds' SDKs): Messages underneath. */
const CLOUD_ROUTES = {
  invoke: { name: 'bedrock_invoke', template: '/model/{model}/invoke', method: 'POST', dialect: 'anthropic' },
  invokeStream: {
    name: 'bedrock_invoke_stream',
    template: '/model/{model}/invoke-with-response-stream',
    method: 'POST',
    dialect: 'anthropic',
  },
  rawPredict: {
    name: 'vertex_raw_predict',
    template: '/v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:rawPredict',
    method: 'POST',
    dialect: 'anthropic',
  },
  streamRawPredict: {
    name: 'vertex_stream_raw_predict',
    template: '/v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:streamRawPredict',
    method: 'POST',
    dialect: 'anthropic',
  },
  countTokens: {
    name: 'vertex_count_tokens',
    template: '/v1/projects/{project}/locations/{location}/publishers/anthropic/models/count-tokens:rawPredict',
    method: 'POST',
    dialect: 'anthropic',
  },
} as const satisfies Record<string, Route>;

/** A cloud route's Route, or undefined; only paths that start like one are parsed. */
function cloudRoute(path: string): Route | undefined {
  if (path.startsWith('/model/')) {
    const call = bedrockCallOf(path);
    return call === null ? undefined : call.stream ? CLOUD_ROUTES.invokeStream : CLOUD_ROUTES.invoke;
  }
  const call = vertexCallOf(path);
  if (call === null) return undefined;
  if (call.method === 'count-tokens') return CLOUD_ROUTES.countTokens;
  return call.method === 'streamRawPredict' ? CLOUD_ROUTES.streamRawPredict : CLOUD_ROUTES.rawPredict;
}

const RESPONSE_PREFIX = '/v1/responses/';
/** GET and DELETE /v1/responses/{id}: a stored response (the SDK's `responses.retrieve` and `delete`). */
const RESPONSE_ROUTE: Route = {
  name: 'response',
  template: '/v1/responses/{id}',
  method: 'GET',
  alsoMethod: 'DELETE',
  dialect: 'responses',
};
/** GET /v1/responses/{id}/input_items: the items a stored response was made from (`responses.inputItems.list`). */
const INPUT_ITEMS_SUFFIX = '/input_items';
const INPUT_ITEMS_ROUTE: Route = {
  name: 'response_input_items',
  template: '/v1/responses/{id}/input_items',
  method: 'GET',
  dialect: 'responses',
};

const CONVERSATION_PREFIX = '/v1/conversations/';
const CONVERSATION_ROUTES = {
  one: {
    name: 'conversation',
    template: '/v1/conversations/{id}',
    method: 'GET',
    alsoMethods: ['POST', 'DELETE'],
    dialect: 'responses',
  },
  items: {
    name: 'conversation_items',
    template: '/v1/conversations/{id}/items',
    method: 'GET',
    alsoMethod: 'POST',
    dialect: 'responses',
  },
  item: {
    name: 'conversation_item',
    template: '/v1/conversations/{id}/items/{item_id}',
    method: 'GET',
    alsoMethod: 'DELETE',
    dialect: 'responses',
  },
} as const satisfies Record<string, Route>;

/** The ids of a `/v1/conversations/{id}[/items[/{item_id}]]` path, or null when it has another shape. */
export function conversationPathOf(path: string): { id: string; items: boolean; itemId: string | null } | null {
  if (!path.startsWith(CONVERSATION_PREFIX)) return null;
  const parts = path.slice(CONVERSATION_PREFIX.length).split('/');
  if (parts[0] === '' || parts.length > 3) return null;
  if (parts.length >= 2 && parts[1] !== 'items') return null;
  if (parts.length === 3 && parts[2] === '') return null;
  try {
    return {
      id: decodeURIComponent(parts[0]),
      items: parts.length >= 2,
      itemId: parts.length === 3 ? decodeURIComponent(parts[2]) : null,
    };
  } catch {
    return null;
  }
}

export function findRoute(path: string): Route | undefined {
  const exact = ROUTES.get(path);
  if (exact !== undefined) return exact;
  if (path.length > CONVERSATION_PREFIX.length && path.charCodeAt(4) === 99 /* c */) {
    const c = conversationPathOf(path);
    if (c !== null)
      return c.itemId !== null
        ? CONVERSATION_ROUTES.item
        : c.items
          ? CONVERSATION_ROUTES.items
          : CONVERSATION_ROUTES.one;
  }
  if (path.startsWith('/model/') || path.startsWith('/projects/') || path.startsWith('/v1/projects/')) {
    const cloud = cloudRoute(path);
    if (cloud !== undefined) return cloud;
  }
  // Only paths that can be Gemini's pay for its parse.
  const gemini = path.charCodeAt(3) === 98 /* b */ || path.includes(':') ? geminiCallOf(path) : null;
  if (gemini !== null) {
    if (gemini.method === 'countTokens') return GEMINI_ROUTES.count;
    if (gemini.method === 'generateContent' || gemini.method === 'streamGenerateContent') return GEMINI_ROUTES.generate;
    if (gemini.method === '') return GEMINI_ROUTES.unknown;
    return gemini.model === null ? GEMINI_ROUTES.models : GEMINI_ROUTES.model;
  }
  if (path.length > MODELS_PREFIX.length && path.startsWith(MODELS_PREFIX)) return MODEL_ROUTE;
  if (path.length > RESPONSE_PREFIX.length && path.startsWith(RESPONSE_PREFIX)) {
    const slash = path.indexOf('/', RESPONSE_PREFIX.length);
    if (slash === -1) return RESPONSE_ROUTE;
    if (
      slash > RESPONSE_PREFIX.length &&
      path.length === slash + INPUT_ITEMS_SUFFIX.length &&
      path.endsWith(INPUT_ITEMS_SUFFIX)
    )
      return INPUT_ITEMS_ROUTE;
  }
  return undefined;
}

/** The response id of a `/v1/responses/{id}` or `/v1/responses/{id}/input_items` path, or null. */
export function responseIdOf(path: string): string | null {
  // findRoute has matched the path: the id ends at the first slash after the prefix, if any.
  const slash = path.indexOf('/', RESPONSE_PREFIX.length);
  const end = slash === -1 ? path.length : slash;
  try {
    return decodeURIComponent(path.slice(RESPONSE_PREFIX.length, end));
  } catch {
    return null;
  }
}

/** The model id of a `/v1/models/{id}` path (SDKs percent-encode it; a name may hold a `/`), or null. */
export function modelIdOf(path: string): string | null {
  try {
    return decodeURIComponent(path.slice(MODELS_PREFIX.length));
  } catch {
    return null;
  }
}

/**
 * The dialect an error is written in where the path does not decide it: Anthropic-shaped under
 * /v1/messages, and for any caller that sends `anthropic-version` (the Anthropic SDK does, on
 * `models.list`, `models.retrieve` and endpoints the gateway does not have); else OpenAI.
 */
export function dialectForPath(path: string, anthropicVersion?: string | string[]): Dialect {
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/complete')) return 'anthropic';
  if (path.startsWith('/v1beta/') || path === '/v1beta') return 'gemini';
  return anthropicVersion === undefined ? 'openai' : 'anthropic';
}

/** A route's error dialect for this caller: the shared GET routes answer Anthropic callers in kind. */
export function callerDialect(route: Route, anthropicVersion: string | string[] | undefined): Dialect {
  return route.dialect === 'openai' &&
    anthropicVersion !== undefined &&
    (route.name === 'models' || route.name === 'model')
    ? 'anthropic'
    : route.dialect;
}

/**
 * The class of a path that no route matched, for metrics and logs: a handful of fixed names, so a
 * client probing made-up paths cannot grow the metrics without bound.
 */
export function endpointClass(path: string): string {
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/complete')) return 'anthropic';
  if (path.startsWith('/v1beta/')) return 'gemini';
  if (path.startsWith('/v1/')) return 'openai';
  if (path === '/admin' || path.startsWith('/admin/')) return 'admin';
  if (path === '/ui' || path.startsWith('/ui/')) return 'ui';
  return 'other';
}
