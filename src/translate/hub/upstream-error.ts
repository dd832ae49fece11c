// An upstream's error, read tolerantly from its body, and the dialect-neutral half of shaping it for the
// caller: the status per shared/DESIGN.md (400 stays 400, the gateway's own credentials refused (401)
// become 502, other 5xx 502, timeouts 504, rate limits 429; a 403 stays 403: it is as often about the
// request, a moderation or a WAF, as about the key, and an SDK retries a 502) and the upstream's text kept
// with secrets masked. The type names each dialect uses are its own (dialects/*/errors.ts).
import { isObject, str, tryParseJson } from '../../core/narrow.ts';
import type { HubDialect, UpstreamError } from './form.ts';
import { maskKey } from '../../auth/key-material.ts';

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

export function clientStatusFor(upstreamStatus: number): number {
  if (upstreamStatus === 401) return 502;
  if (upstreamStatus === 408 || upstreamStatus === 504) return 504;
  if (upstreamStatus === 422) return 400;
  // The caller's model exists in the gateway's catalog: an upstream 404 is the operator's configuration
  // (a wrong upstream model name or base URL), not something the caller can fix.
  if (upstreamStatus === 404) return 502;
  if (upstreamStatus >= 500) return 502;
  if (upstreamStatus >= 400) return upstreamStatus;
  return 502;
}

/** Masks API-key-looking tokens to first 4 + last 4 characters. */
export function maskSecrets(text: string): string {
  return text
    .replace(/\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{12,}/g, (k) => maskKey(k))
    .replace(/(Bearer\s+)([A-Za-z0-9._\-]{12,})/gi, (_m, p: string, k: string) => `${p}${maskKey(k)}`);
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

/** The status to answer and the message to show, the same for every dialect. */
export function shapedStatusAndMessage(err: UpstreamError): { status: number; message: string } {
  const status = clientStatusFor(err.status);
  let message = maskSecrets(err.message ?? `upstream returned HTTP ${err.status}`);
  if (err.status === 401) message = `the upstream provider refused the gateway's credentials: ${message}`;
  else if (err.status === 403) message = `the upstream provider refused the request: ${message}`;
  return { status, message };
}
