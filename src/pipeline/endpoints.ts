// The short stories: an authenticated request answered at once — the model listings, the usage
// self-check, a stored response, a token count — each its stage's own; the endpoint table
// (endpoint-table.ts) says which answer each endpoint gives.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { answeredOrGone, readBody, parseJsonBody } from '../http/body.ts';
import { sendError, sendJson } from '../http/respond.ts';
import { callerDialect } from '../http/routes.ts';
import type { RouteMatch } from '../http/endpoint.ts';
import { authenticate, authenticateGemini } from '../auth/authenticate.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { CountResult } from '../counting/count-call.ts';
import type { Gateway } from './gateway.ts';
import { stagedBody } from './staged-body.ts';

/** What a short answer has to work with: the caller's key, the request, and its body read on demand. */
export interface ShortContext {
  key: KeyRecord;
  req: IncomingMessage;
  now: number;
  /** The JSON body, through the model's stages (a token count may go to an upstream's count endpoint). */
  read(): Promise<{ text: string; value: unknown }>;
}

/** One endpoint's answer: a JSON body, and where a token count came from when it is one. */
export type ShortAnswer<P> = (
  ctx: ShortContext,
  params: P,
) => { body: string; source?: CountResult['source'] } | Promise<{ body: string; source?: CountResult['source'] }>;

export async function answerShort<P>(
  gw: Gateway,
  a: {
    req: IncomingMessage;
    res: ServerResponse;
    requestId: string;
    match: RouteMatch<P>;
    answer: ShortAnswer<P>;
    /** The model a Gemini path names, for the stages a counted body passes. */
    pathModel?: (params: P) => string | null | undefined;
  },
): Promise<void> {
  const { req, res, requestId, match } = a;
  const e = match.endpoint;
  gw.tracing?.tracePlain({ method: req.method ?? 'GET', endpoint: e.template, requestId, headers: req.headers }, res);
  try {
    const now = Date.now();
    const key = await (e.dialect === 'gemini'
      ? authenticateGemini(req.headers, req.url, gw.keys, now, req.socket)
      : authenticate(req.headers, gw.keys, now, req.socket));
    // Only POSTs (token counts, conversations) read a body.
    if (req.method !== 'POST') req.resume();
    const read = async (): Promise<{ text: string; value: unknown }> => {
      const body = parseJsonBody(await readBody(req, gw.bodyLimits));
      if (gw.stages === null) return body;
      const model = a.pathModel?.(match.params) ?? undefined;
      return stagedBody(gw, { dialect: callerDialect(e, req.headers['anthropic-version']), body, model });
    };
    const { body, source } = await a.answer({ key, req, now, read }, match.params);
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
    sendError(res, { dialect: callerDialect(e, req.headers['anthropic-version']), error: err, requestId });
  }
}
