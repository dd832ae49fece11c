// Upstream answers and errors → attempt outcomes, and all attempts → the one error the caller sees.
// Statuses follow SPEC §8 (what is retried) and DESIGN.md Part 2 (what the caller gets).
import type { ErrorCode } from '../core/errors.ts';
import type { AttemptOutcome, AttemptRecord, PlanEndReason, RetryableOutcome } from './outcome.ts';
import type { UpstreamHeaders } from '../spec/upstream.ts';
import { header } from '../upstream/http-provider.ts';

/** The issue-5 list; 529 is Anthropic's `overloaded_error`. Other 5xx (501, 505…) will not change on retry. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** An answer undici could not read: a broken upstream (another deployment may answer), not our bug. */
const MALFORMED_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_INFO',
]);

/**
 * Failures of this process, not of the upstream: out of file descriptors, memory or local ports. An
 * upstream cannot cause them, so they must never open its circuit breaker.
 */
const LOCAL_CODES: ReadonlySet<string> = new Set([
  'EMFILE',
  'ENFILE',
  'ENOMEM',
  'ENOBUFS',
  'EADDRNOTAVAIL',
  'ERR_STRING_TOO_LONG',
  'ERR_BUFFER_TOO_LARGE',
]);

/** Out of descriptors: the process's (EMFILE), the system's (ENFILE), or the budget's (descriptor-budget.ts). */
const DESCRIPTOR_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'MODELGATE_DESCRIPTORS']);

/** Causes are walked this deep: undici wraps socket errors once or twice. */
const MAX_CAUSE_DEPTH = 5;

/**
 * `retry-after-ms` (float ms, OpenAI) wins over `retry-after` (seconds or an HTTP date), as in both
 * SDKs (SDK-NOTES.md). Unparseable or negative values are ignored rather than guessed at.
 */
export function parseRetryAfter(headers: UpstreamHeaders, wallNowMs: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const raw = header(headers, 'retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  // Date.parse reads '-1' as a year: an HTTP date always names a weekday or month.
  const date = /[a-z]/i.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - wallNowMs);
}

/** An upstream HTTP status (and its headers) as an attempt outcome. */
export function classifyStatus(status: number, headers: UpstreamHeaders = {}): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'success' };
  // Only 401 says the key itself is bad. A 403 also comes from what is in the request (OpenRouter's
  // moderation, a WAF in front of the upstream): taking the key out of rotation on it would let one
  // caller's request lock every caller out of the provider. It is the request's answer, like a 400.
  if (status === 401) return { kind: 'credentials', status };
  if (RETRYABLE_STATUSES.has(status)) {
    // The upstream's own word that a retry cannot help (the header the SDKs read first).
    if (header(headers, 'x-should-retry') === 'false') return { kind: 'fatal', status };
    const outcome: RetryableOutcome = { kind: 'retryable', status };
    const retryAfterMs = parseRetryAfter(headers);
    if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
    return outcome;
  }
  return { kind: 'fatal', status };
}

/**
 * OpenAI's 429 `insufficient_quota`: the gateway's provider account is out of credit. No wait fixes it
 * and it is not the caller's rate limit: it is treated as a refused key (the next key, if any, else the
 * operator), and the caller sees a 502, not a 429 that invites retries.
 */
export function isQuotaExhausted(status: number, bodyText: string): boolean {
  return status === 429 && /"(?:code|type)"\s*:\s*"insufficient_quota"/.test(bodyText);
}

function errorCode(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

const TLS_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

function isTlsCode(code: string): boolean {
  return (
    TLS_CODES.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('UNABLE_TO_') ||
    code.startsWith('CERT_')
  );
}

function errorName(err: object): string | undefined {
  const name = (err as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * An error thrown before the first byte reached the client. Connection failures and timeouts are
 * retryable; a local resource failure (EMFILE…) and anything unrecognised are the gateway's own fault
 * (`local`: a 500, not retried on another deployment, never counted against this one). The caller
 * must check for its own client-abort first.
 */
export function classifyError(err: unknown): AttemptOutcome {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const code = errorCode(current);
    if (code !== undefined && DESCRIPTOR_CODES.has(code)) return { kind: 'local', descriptors: true };
    if (code !== undefined && LOCAL_CODES.has(code)) return { kind: 'local' };
    // The provider's credentials could not be had (its signing step failed): as if it refused them.
    if (errorName(current) === 'UpstreamCredentialsError') return { kind: 'credentials' };
    if (errorName(current) === 'TimeoutError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return { kind: 'retryable', timeout: true };
    }
    // HPE_*: llhttp could not parse the upstream's answer — a broken upstream, not our bug. undici's
    // HTTPParserError carries no code for some of them (a bad chunk size), hence the name too. A TLS
    // failure (expired or mismatched certificate, handshake) is the upstream's side too. ERR_HTTP2_*: a
    // stream the upstream reset (RST_STREAM) or an HTTP/2 session that failed, as a reset connection.
    if (
      code !== undefined &&
      (CONNECTION_CODES.has(code) || code.startsWith('HPE_') || code.startsWith('ERR_HTTP2_') || isTlsCode(code))
    )
      return { kind: 'retryable' };
    if (errorName(current) === 'HTTPParserError' || (code !== undefined && MALFORMED_CODES.has(code)))
      return { kind: 'retryable', malformed: true };
    current = (current as { cause?: unknown }).cause;
  }
  return { kind: 'local' };
}

/**
 * Codes of the error catalogue, so the request path can build `new GatewayError(code, { status,
 * message })`. `status` may differ from the code's default: an upstream 4xx passes through as
 * itself, and a client that left is 499 (for the usage row only).
 */
export type FinalErrorCode = Extract<
  ErrorCode,
  | 'upstream_rate_limited'
  | 'upstream_error'
  | 'no_deployment_available'
  | 'upstream_timeout'
  | 'internal_error'
  | 'descriptors_exhausted'
>;

export interface FinalError {
  status: number;
  code: FinalErrorCode;
  /** Says how many attempts were made; names the model, never a key or an upstream URL. */
  message: string;
  /** The caller's `retry-after`: the smallest upstream one on a 429, a cooldown's end on a 503. */
  retryAfterMs?: number;
  /** No retry can succeed (the SDKs read `x-should-retry: false` before the status). */
  noRetry?: boolean;
  /** The last failure was the upstream being overloaded (529, 503): Anthropic's `overloaded_error`. */
  overloaded?: boolean;
}

export interface FinalErrorInput {
  model: string;
  attempts: readonly AttemptRecord[];
  reason: PlanEndReason;
  /** For `none-available`: ms until a deployment may be tried again; null when only the operator can fix it. */
  availableInMs?: number | null;
}

function attemptsText(count: number): string {
  return count === 1 ? '1 attempt' : `${count} attempts`;
}

function deploymentsText(attempts: readonly AttemptRecord[]): string {
  const count = new Set(attempts.map((a) => a.deploymentId)).size;
  return count === 1 ? '1 deployment' : `${count} deployments`;
}

function lastFailureText(outcome: AttemptOutcome): string {
  switch (outcome.kind) {
    case 'retryable':
      if (outcome.timeout) return 'a timeout';
      if (outcome.malformed) return 'an unusable 2xx answer';
      return outcome.status === undefined ? 'a connection error' : `status ${outcome.status}`;
    case 'credentials':
      return 'rejected gateway credentials';
    case 'fatal':
      return `status ${outcome.status}`;
    case 'local':
      return 'a failure of the gateway itself';
    case 'success':
      return 'success';
  }
}

function smallestRetryAfter(failures: readonly AttemptOutcome[]): number | undefined {
  let smallest: number | undefined;
  for (const outcome of failures) {
    if (outcome.kind !== 'retryable' || outcome.retryAfterMs === undefined) continue;
    if (smallest === undefined || outcome.retryAfterMs < smallest) smallest = outcome.retryAfterMs;
  }
  return smallest;
}

const isRateLimited = (o: AttemptOutcome): boolean => o.kind === 'retryable' && o.status === 429;
// An upstream's own 504 is a timeout too (a gateway in front of it gave up waiting).
const isTimeout = (o: AttemptOutcome): boolean => o.kind === 'retryable' && (o.timeout === true || o.status === 504);

/**
 * The error the caller sees once a plan has ended without success (DESIGN.md statuses): 429 when every
 * attempt was rate-limited, 503 when nothing could be tried, 504 for timeouts, 502 otherwise —
 * including refused gateway credentials, which must never look like the caller's own 401.
 */
export function finalError(input: FinalErrorInput): FinalError {
  const { model, attempts, reason } = input;
  const n = attempts.length;
  if (reason === 'cancelled') {
    return { status: 499, code: 'upstream_error', message: `The client closed the request after ${attemptsText(n)}.` };
  }
  if (n === 0) {
    if (reason === 'deadline') {
      const message = `No attempt for model '${model}' could start before the request deadline (0 attempts).`;
      return { status: 504, code: 'upstream_timeout', message };
    }
    if (input.availableInMs === null) {
      const message = `No deployment of model '${model}' is available: the upstream refused the gateway's credentials; they are re-probed periodically, and the operator should check them (0 attempts).`;
      return { status: 503, code: 'no_deployment_available', message, noRetry: true };
    }
    const error: FinalError = {
      status: 503,
      code: 'no_deployment_available',
      message: `No deployment of model '${model}' is available: all are cooling down or disabled (0 attempts).`,
    };
    if (input.availableInMs !== undefined) error.retryAfterMs = Math.max(1_000, input.availableInMs);
    return error;
  }
  const last = attempts[n - 1].outcome;
  if (last.kind === 'success') throw new Error('finalError called for a request that succeeded');
  if (last.kind === 'local' && last.descriptors === true) {
    // Connections end every moment: a second is long enough for some to close, short enough to keep
    // the caller's wait small.
    return {
      status: 503,
      code: 'descriptors_exhausted',
      message: `The gateway is at its file-descriptor limit and could not open an upstream connection for model '${model}'; retry shortly.`,
      retryAfterMs: 1_000,
      overloaded: true,
    };
  }
  if (last.kind === 'local' || reason === 'local') {
    return {
      status: 500,
      code: 'internal_error',
      message: `The gateway failed while sending the request for model '${model}' (${attemptsText(n)}); the upstream is not at fault.`,
    };
  }
  const where = `${attemptsText(n)} on ${deploymentsText(attempts)} of model '${model}'`;
  if (last.kind === 'fatal') {
    // The upstream text goes to the caller as received; this message is only the fallback.
    if (last.status < 500) {
      const message = `The upstream rejected the request with status ${last.status} after ${where}.`;
      return { status: last.status, code: 'upstream_error', message };
    }
    // 501, 505, or a 5xx the upstream said not to retry: the next try would meet the same answer.
    return {
      status: 502,
      code: 'upstream_error',
      message: `Upstream failure after ${where}; last: status ${last.status}.`,
      noRetry: true,
    };
  }
  const failures = attempts.map((a) => a.outcome);
  if (failures.every(isRateLimited)) {
    const retryAfterMs = smallestRetryAfter(failures);
    const hint = retryAfterMs === undefined ? '' : `; retry after ${Math.ceil(retryAfterMs / 1000)} s`;
    const error: FinalError = {
      status: 429,
      code: 'upstream_rate_limited',
      message: `Upstream rate limit on ${where}${hint}.`,
    };
    if (retryAfterMs !== undefined) error.retryAfterMs = retryAfterMs;
    return error;
  }
  const unavailable = reason === 'none-available' ? '; no other deployment is available' : '';
  const lastText = lastFailureText(last);
  if (reason === 'deadline' || failures.filter((o) => !isRateLimited(o)).every(isTimeout)) {
    return {
      status: 504,
      code: 'upstream_timeout',
      message: `Upstream timeout after ${where}; last: ${lastText}${unavailable}.`,
    };
  }
  if (failures.every((o) => o.kind === 'credentials')) {
    return {
      status: 502,
      code: 'upstream_error',
      message: `The upstream refused the gateway's credentials for model '${model}' (${attemptsText(n)}); they are re-probed periodically, and the operator should check them.`,
      noRetry: true,
    };
  }
  const error: FinalError = {
    status: 502,
    code: 'upstream_error',
    message: `Upstream failure after ${where}; last: ${lastText}${unavailable}.`,
  };
  // Overloaded (Anthropic's 529, a 503): Anthropic callers read the type they know for it.
  if (last.kind === 'retryable' && (last.status === 529 || last.status === 503)) error.overloaded = true;
  return error;
}
