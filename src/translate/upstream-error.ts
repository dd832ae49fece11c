// An upstream error body in either dialect re-shaped for the client's dialect, upstream text preserved
// (secrets masked). Status follows shared/DESIGN.md: 400 stays 400, the gateway's own credentials being
// refused (401) becomes 502, other 5xx become 502, timeouts 504, rate limits 429. A 403 stays 403: it
// is as often about the request (moderation, a WAF) as about the key, and an SDK retries a 502.
import type { Dialect } from '../core/dialect.ts';
import { isObject, str, tryParseJson } from './narrow.ts';

export interface UpstreamErrorOptions {
  upstreamKind: Dialect;
  clientDialect: Dialect;
  /** HTTP status the upstream answered with (for in-stream errors, one implied by the error type). */
  status: number;
  bodyText: string;
}

export interface DialectError {
  /** Status to answer the client with. */
  status: number;
  type: string;
  message: string;
  /** Only meaningful to OpenAI clients; null for Anthropic ones. */
  code: string | null;
  param: string | null;
}

/** The HTTP status an Anthropic error type stands for (STREAMING.md §3.1); used for in-stream errors. */
export const ANTHROPIC_ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

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

function typeFor(dialect: Dialect, upstreamStatus: number, clientStatus: number): string {
  if (dialect === 'anthropic') {
    if (upstreamStatus === 529 || upstreamStatus === 503) return 'overloaded_error';
    if (clientStatus === 504) return 'timeout_error';
    if (clientStatus >= 500) return 'api_error';
    if (clientStatus === 403) return 'permission_error';
    if (clientStatus === 404) return 'not_found_error';
    if (clientStatus === 429) return 'rate_limit_error';
    return 'invalid_request_error';
  }
  if (clientStatus >= 500) return 'server_error';
  if (clientStatus === 429) return 'rate_limit_error';
  return 'invalid_request_error';
}

/** Masks API-key-looking tokens to first 4 + last 4 characters. */
export function maskSecrets(text: string): string {
  return text
    .replace(/\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{12,}/g, (k) => `${k.slice(0, 4)}…${k.slice(-4)}`)
    .replace(/(Bearer\s+)([A-Za-z0-9._\-]{12,})/gi, (_m, p: string, k: string) => `${p}${k.slice(0, 4)}…${k.slice(-4)}`);
}

interface ParsedError {
  message: string | undefined;
  type: string | undefined;
  code: string | undefined;
  param: string | undefined;
}

/** Upstream text kept in an error: enough to act on, never a whole page (an upstream's 5 MB message). */
const MAX_MESSAGE = 2000;
const MAX_FIELD = 200;

function capped(text: string | undefined, max: number): string | undefined {
  return text === undefined || text.length <= max ? text : `${text.slice(0, max)}…`;
}

function parseErrorBody(bodyText: string): ParsedError {
  const parsed = readErrorBody(bodyText);
  return { message: capped(parsed.message, MAX_MESSAGE), type: capped(parsed.type, MAX_FIELD), code: capped(parsed.code, MAX_FIELD), param: capped(parsed.param, MAX_FIELD) };
}

function readErrorBody(bodyText: string): ParsedError {
  const body = tryParseJson(bodyText);
  if (isObject(body)) {
    const err = body.error;
    if (isObject(err)) {
      const code = typeof err.code === 'number' ? String(err.code) : str(err.code);
      // Gemini names its error kind in `status` (INVALID_ARGUMENT, …) where the others use `type`.
      return { message: str(err.message), type: str(err.type) ?? str(err.status), code, param: str(err.param) };
    }
    if (typeof err === 'string') return { message: err, type: undefined, code: undefined, param: undefined };
    if (str(body.message) !== undefined) return { message: str(body.message), type: str(body.type), code: undefined, param: undefined };
  }
  const text = bodyText.trim();
  return { message: text.length > 0 ? text : undefined, type: undefined, code: undefined, param: undefined };
}

export function upstreamErrorToDialect(opts: UpstreamErrorOptions): DialectError {
  const parsed = parseErrorBody(opts.bodyText);
  const status = clientStatusFor(opts.status);
  let message = maskSecrets(parsed.message ?? `upstream returned HTTP ${opts.status}`);
  if (opts.status === 401) message = `the upstream provider refused the gateway's credentials: ${message}`;
  else if (opts.status === 403) message = `the upstream provider refused the request: ${message}`;
  const sameDialect = opts.upstreamKind === opts.clientDialect;
  const type = sameDialect && parsed.type !== undefined && status === opts.status ? parsed.type : typeFor(opts.clientDialect, opts.status, status);
  if (opts.clientDialect === 'anthropic') return { status, type, message, code: null, param: null };
  // An Anthropic error type is still useful to OpenAI clients; it travels as the code.
  const code = opts.upstreamKind === 'openai' ? (parsed.code ?? null) : (parsed.type ?? null);
  return { status, type, message, code, param: opts.upstreamKind === 'openai' ? (parsed.param ?? null) : null };
}
