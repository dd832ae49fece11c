// The short stories: an authenticated request answered at once — the model listings, the usage
// self-check, a stored response, a token count — each its stage's own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { answeredOrGone, readBody, parseJsonBody } from '../http/body.ts';
import { geminiCallOf, geminiListingOf } from '../dialects/gemini/routes.ts';
import { sendError, sendJson } from '../http/respond.ts';
import { callerDialect, conversationPathOf, modelIdOf, pathOf, responseIdOf, type Route } from '../http/routes.ts';
import { authenticate, authenticateGemini } from '../auth/authenticate.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { listModelsBody, modelBody } from '../catalog/list-models.ts';
import { geminiModelBody, geminiModelsBody } from '../catalog/gemini-models.ts';
import type { CountResult } from '../counting/count-call.ts';
import { countMessagesTokens } from '../counting/count-messages.ts';
import { countResponsesTokens } from '../counting/count-responses.ts';
import { countGeminiTokens } from '../counting/count-gemini.ts';
import { usageTokenBody } from '../accounting/usage-token.ts';
import { storedResponse } from '../store/stored-response.ts';
import { storedInputItems } from '../store/input-items.ts';
import { countedTurn } from '../conversation/responses-turn.ts';
import { answerConversations } from '../conversation/conversations-api.ts';
import type { Gateway } from './gateway.ts';
import { stagedBody } from './staged-body.ts';
import { INFERENCE_PROFILES_BODY, vertexCountRequest } from './cloud-routes.ts';

export async function answerShort(
  gw: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  requestId: string,
): Promise<void> {
  gw.tracing?.tracePlain(
    { method: req.method ?? 'GET', endpoint: route.template, requestId, headers: req.headers },
    res,
  );
  try {
    const now = Date.now();
    const key = await (route.dialect === 'gemini'
      ? authenticateGemini(req.headers, req.url, gw.keys, now, req.socket)
      : authenticate(req.headers, gw.keys, now, req.socket));
    // Only POSTs (token counts, conversations) read a body.
    if (req.method !== 'POST') req.resume();
    const { body, source } = await shortAnswer(gw, req, { key, route, now });
    sendJson(res, {
      status: 200,
      body,
      requestId,
      headers: source === undefined ? undefined : { 'x-modelgate-token-count': source },
    });
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    if (answeredOrGone(err)) return;
    req.resume();
    sendError(res, { dialect: callerDialect(route, req.headers['anthropic-version']), error: err, requestId });
  }
}

async function shortAnswer(
  gw: Gateway,
  req: IncomingMessage,
  a: { key: KeyRecord; route: Route; now: number },
): Promise<{ body: string; source?: CountResult['source'] }> {
  const { key } = a;
  const path = pathOf(req.url);
  const read = async (): Promise<{ text: string; value: unknown }> => {
    const body = parseJsonBody(await readBody(req, gw.bodyLimits));
    if (gw.stages === null) return body;
    // A token count may go to the upstream's own count endpoint: its prompt passes the model's stages too.
    const model = a.route.dialect === 'gemini' ? geminiCallOf(path)?.model : undefined;
    return stagedBody(gw, { dialect: callerDialect(a.route, req.headers['anthropic-version']), body, model });
  };
  switch (a.route.name) {
    case 'models':
      return { body: listModelsBody(gw.catalog, key) };
    case 'model':
      return { body: modelBody(gw.catalog, key, modelIdOf(path)) };
    case 'gemini_models':
      return { body: geminiModelsBody(gw.catalog, key) };
    case 'gemini_model':
      return {
        body: geminiModelBody(gw.catalog, key, (geminiCallOf(path) ?? geminiListingOf(path))?.model ?? undefined),
      };
    case 'usage_token':
      return { body: await usageTokenBody(gw, key, a.now) };
    case 'response':
      return {
        body: await storedResponse(gw.responses, {
          key,
          id: responseIdOf(path),
          method: req.method ?? 'GET',
          now: a.now,
        }),
      };
    case 'response_input_items':
      return { body: await storedInputItems(gw.responses, { key, id: responseIdOf(path), url: req.url, now: a.now }) };
    case 'conversations':
    case 'conversation':
    case 'conversation_items':
    case 'conversation_item':
      return {
        body: await answerConversations(gw.conversations, {
          key,
          method: req.method ?? 'GET',
          path: a.route.name === 'conversations' ? null : conversationPathOf(path),
          url: req.url,
          readBody: read,
          now: a.now,
        }),
      };
    case 'responses_input_tokens':
      return countResponsesTokens(gw, {
        key,
        ...(await countedTurn(gw.responses, { keyId: key.id, ...(await read()), now: a.now })),
        defaultMaxTokens: gw.config.defaultMaxTokens,
      });
    case 'bedrock_inference_profiles':
      return { body: INFERENCE_PROFILES_BODY };
    case 'vertex_count_tokens':
      return countMessagesTokens(gw, { key, ...vertexCountRequest(gw.catalog, req.headers, read) });
    case 'gemini_count':
      return countGeminiTokens(gw, { key, call: geminiCallOf(path)!, value: (await read()).value });
    default:
      return countMessagesTokens(gw, { key, headers: req.headers, readBody: read });
  }
}
