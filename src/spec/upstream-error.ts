// An upstream's error, read tolerantly from its body, and the dialect-neutral half of shaping it for the
// caller: the status the contract gives it (core/errors.ts clientStatusFor) and the upstream's text kept
// with key-shaped text masked. The type names each dialect uses are its own (dialects/*/errors.ts).
import { clientStatusFor } from '../core/errors.ts';
import { isObject, str, tryParseJson } from '../core/json.ts';
import type { HubDialect, UpstreamError } from './form.ts';
import { maskKeyLike } from '../core/mask-secrets.ts';

/** An upstream error shaped for the caller's dialect. */
export interface DialectError {
  /** Status to answer the client with. */
  status: number;
  type: string;
  message: string;
  /** Only meaningful to OpenAI-style clients; null for Anthropic ones. */
  code: string | null;
  param: string | null;
}

/** Upstream text kept in an error: enough to act on, never a whole page (an upstream's 5 MB message). */
const MAX_MESSAGE = 2000;
const MAX_FIELD = 200;

function capped(text: string | undefined, max: number): string | undefined {
  return text === undefined || text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * An error body as an UpstreamError. Read tolerantly: OpenAI's `{error:{message,type,code,param}}`,
 * Anthropic's `{type:"error",error:{type,message}}`, a bare `{error:"…"}` or `{message}`, or plain text,
 * whatever the upstream's kind, since compatible servers mix them.
 */
export function readUpstreamError(from: HubDialect, status: number, bodyText: string): UpstreamError {
  const out: UpstreamError = { from, status };
  const body = tryParseJson(bodyText);
  if (isObject(body)) {
    const err = body.error;
    if (isObject(err)) {
      out.message = capped(str(err.message), MAX_MESSAGE);
      // Gemini names its error kind in `status` (INVALID_ARGUMENT, …) where the others use `type`.
      out.type = capped(str(err.type) ?? str(err.status), MAX_FIELD);
      out.code = capped(typeof err.code === 'number' ? String(err.code) : str(err.code), MAX_FIELD);
      out.param = capped(str(err.param), MAX_FIELD);
      return out;
    }
    if (typeof err === 'string') {
      out.message = capped(err, MAX_MESSAGE);
      return out;
    }
    if (str(body.message) !== undefined) {
      out.message = capped(str(body.message), MAX_MESSAGE);
      out.type = capped(str(body.type), MAX_FIELD);
      return out;
    }
  }
  const text = bodyText.trim();
  if (text.length > 0) out.message = capped(text, MAX_MESSAGE);
  return out;
}

/**
 * What an upstream 404 most likely means. An answer about the model (OpenAI's `model_not_found`) names
 * the model; any other 404 is a path the upstream does not have, which is what a base_url missing its
 * `/v1` (or an Anthropic one with it) produces on every request. Null for other statuses.
 */
export function notFoundHint(status: number, bodyText: string): string | null {
  if (status !== 404 || /model/i.test(bodyText)) return null;
  return "the upstream has no such path: the provider's base_url is the likely cause (OpenAI-style URLs end in /v1, Anthropic's and Gemini's are the bare origin; `modelgate config check` looks for this)";
}

/** The status to answer and the message to show, the same for every dialect. */
export function shapedStatusAndMessage(err: UpstreamError): { status: number; message: string } {
  const status = clientStatusFor(err.status);
  let message = maskKeyLike(err.message ?? `upstream returned HTTP ${err.status}`);
  if (err.status === 401) message = `the upstream provider refused the gateway's credentials: ${message}`;
  else if (err.status === 403) message = `the upstream provider refused the request: ${message}`;
  else if (err.status === 404) {
    const hint = notFoundHint(404, message);
    if (hint !== null)
      message = err.message === undefined ? `${message}: ${hint}` : `upstream returned HTTP 404 (${message}): ${hint}`;
  }
  return { status, message };
}
