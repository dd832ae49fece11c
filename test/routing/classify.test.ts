// Upstream statuses, headers and errors → outcomes; all attempts → the caller's final error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  classifyError,
  classifyStatus,
  finalError,
  isQuotaExhausted,
  parseRetryAfter,
} from '../../src/routing/classify.ts';
import { ERROR_CODES } from '../../src/core/errors.ts';
import { DescriptorBudgetError } from '../../src/upstream/descriptor-budget.ts';
import type { AttemptOutcome, AttemptRecord, PlanEndReason } from '../../src/routing/outcome.ts';

test('classifyStatus: retryable, credentials, fatal, success', () => {
  const table: [number, AttemptOutcome['kind']][] = [
    [200, 'success'],
    [201, 'success'],
    [429, 'retryable'],
    [500, 'retryable'],
    [502, 'retryable'],
    [503, 'retryable'],
    [504, 'retryable'],
    [529, 'retryable'],
    [401, 'credentials'],
    [400, 'fatal'],
    [403, 'fatal'],
    [404, 'fatal'],
    [408, 'fatal'],
    [413, 'fatal'],
    [422, 'fatal'],
    [501, 'fatal'],
    [505, 'fatal'],
  ];
  for (const [status, kind] of table) {
    const outcome = classifyStatus(status);
    assert.equal(outcome.kind, kind, `status ${status}`);
    if (outcome.kind !== 'success' && outcome.kind !== 'local') assert.equal(outcome.status, status);
  }
});

test('classifyStatus carries retry-after on retryable answers only', () => {
  assert.deepEqual(classifyStatus(429, { 'retry-after': '7' }), { kind: 'retryable', status: 429, retryAfterMs: 7000 });
  assert.deepEqual(classifyStatus(503, {}), { kind: 'retryable', status: 503 });
  assert.deepEqual(classifyStatus(400, { 'retry-after': '7' }), { kind: 'fatal', status: 400 });
});

test('parseRetryAfter: retry-after-ms wins, seconds, HTTP dates, junk ignored', () => {
  const wallNow = Date.parse('2025-01-01T00:00:00Z');
  const table: [Record<string, string | string[] | undefined>, number | undefined][] = [
    [{ 'retry-after-ms': '1500.4', 'retry-after': '9' }, 1501],
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': ['3', '4'] }, 3000],
    [{ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 0],
    [{ 'retry-after-ms': 'soon', 'retry-after': '1' }, 1000],
    [{ 'retry-after-ms': '-5' }, undefined],
    [{ 'retry-after': '-1' }, undefined],
    [{ 'retry-after': 'later' }, undefined],
    [{ 'retry-after': '' }, undefined],
    [{}, undefined],
  ];
  for (const [headers, expected] of table) {
    assert.equal(parseRetryAfter(headers, wallNow), expected, JSON.stringify(headers));
  }
});

function coded(code: string, cause?: unknown): Error {
  return Object.assign(new Error(code, { cause }), { code });
}

test('classifyError: connection errors and timeouts retry, unknown errors do not', () => {
  const table: [unknown, AttemptOutcome][] = [
    [coded('ECONNREFUSED'), { kind: 'retryable' }],
    [coded('ECONNRESET'), { kind: 'retryable' }],
    [coded('UND_ERR_SOCKET'), { kind: 'retryable' }],
    [coded('ENOTFOUND'), { kind: 'retryable' }],
    [coded('HPE_INVALID_CONSTANT'), { kind: 'retryable' }],
    [coded('UND_ERR_CONNECT_TIMEOUT'), { kind: 'retryable', timeout: true }],
    [coded('UND_ERR_HEADERS_TIMEOUT'), { kind: 'retryable', timeout: true }],
    [new DOMException('signal timed out', 'TimeoutError'), { kind: 'retryable', timeout: true }],
    [new TypeError('fetch failed', { cause: coded('ECONNRESET') }), { kind: 'retryable' }],
    [
      new Error('outer', { cause: new Error('middle', { cause: coded('ETIMEDOUT') }) }),
      { kind: 'retryable', timeout: true },
    ],
    // Answers undici could not read are the upstream's fault: another deployment may answer.
    [coded('UND_ERR_HEADERS_OVERFLOW'), { kind: 'retryable', malformed: true }],
    [coded('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), { kind: 'retryable', malformed: true }],
    [
      Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)'), {
        name: 'HTTPParserError',
      }),
      { kind: 'retryable', malformed: true },
    ],
    // The gateway's own failures (issue 39): never the upstream's, never counted against it.
    [new TypeError('x is undefined'), { kind: 'local' }],
    [new RangeError('Maximum call stack size exceeded'), { kind: 'local' }],
    // Out of descriptors: the gateway's, refused as a 503 for that request (the descriptor budget).
    [coded('EMFILE'), { kind: 'local', descriptors: true }],
    [new TypeError('fetch failed', { cause: coded('EMFILE') }), { kind: 'local', descriptors: true }],
    [coded('ENFILE'), { kind: 'local', descriptors: true }],
    [new DescriptorBudgetError(42), { kind: 'local', descriptors: true }],
    // A stream the upstream reset (HTTP/2 RST_STREAM) is a reset connection.
    [coded('ERR_HTTP2_STREAM_ERROR'), { kind: 'retryable' }],
    [coded('EADDRNOTAVAIL'), { kind: 'local' }],
    // A certificate or handshake failure is the upstream's side, not the gateway's.
    [coded('CERT_HAS_EXPIRED'), { kind: 'retryable' }],
    [coded('ERR_TLS_CERT_ALTNAME_INVALID'), { kind: 'retryable' }],
    ['a string', { kind: 'local' }],
    [null, { kind: 'local' }],
  ];
  for (const [err, expected] of table) assert.deepEqual(classifyError(err), expected, String(err));
});

function attempts(...outcomes: AttemptOutcome[]): AttemptRecord[] {
  return outcomes.map((outcome, i) => ({ deploymentId: `m#${i % 2}`, startedAt: i, endedAt: i + 1, outcome }));
}

const r429 = (retryAfterMs?: number): AttemptOutcome =>
  retryAfterMs === undefined ? { kind: 'retryable', status: 429 } : { kind: 'retryable', status: 429, retryAfterMs };
const r5xx = (status: number): AttemptOutcome => ({ kind: 'retryable', status });
const timeout: AttemptOutcome = { kind: 'retryable', timeout: true };
const reset: AttemptOutcome = { kind: 'retryable' };
const creds: AttemptOutcome = { kind: 'credentials', status: 401 };

test('finalError: out of descriptors is a 503 descriptors_exhausted with retry-after, not a 500', () => {
  const fe = finalError({ model: 'm', attempts: attempts({ kind: 'local', descriptors: true }), reason: 'local' });
  assert.equal(fe.status, 503);
  assert.equal(fe.code, 'descriptors_exhausted');
  assert.equal(fe.retryAfterMs, 1_000);
  assert.equal(fe.overloaded, true);
  assert.equal(finalError({ model: 'm', attempts: attempts({ kind: 'local' }), reason: 'local' }).status, 500);
});

test('finalError: status and code per DESIGN.md', () => {
  const table: [string, AttemptRecord[], PlanEndReason, number, string, number | undefined][] = [
    ['nothing tried', [], 'none-available', 503, 'no_deployment_available', undefined],
    ['deadline before any attempt', [], 'deadline', 504, 'upstream_timeout', undefined],
    [
      'all rate-limited: smallest retry-after',
      attempts(r429(5000), r429(2000), r429()),
      'retries-exhausted',
      429,
      'upstream_rate_limited',
      2000,
    ],
    ['all rate-limited, no retry-after', attempts(r429()), 'none-available', 429, 'upstream_rate_limited', undefined],
    ['rate-limited until the deadline', attempts(r429(90_000)), 'deadline', 429, 'upstream_rate_limited', 90_000],
    ['429 then 503', attempts(r429(1000), r5xx(503)), 'retries-exhausted', 502, 'upstream_error', undefined],
    ['5xx and resets', attempts(r5xx(500), reset, r5xx(529)), 'retries-exhausted', 502, 'upstream_error', undefined],
    ['all timeouts', attempts(timeout, timeout), 'retries-exhausted', 504, 'upstream_timeout', undefined],
    ['timeouts and a 429', attempts(timeout, r429(1000)), 'retries-exhausted', 504, 'upstream_timeout', undefined],
    ['timeout then 502', attempts(timeout, r5xx(502)), 'retries-exhausted', 502, 'upstream_error', undefined],
    ['deadline after 5xx', attempts(r5xx(500)), 'deadline', 504, 'upstream_timeout', undefined],
    ['failures then breaker opened', attempts(r5xx(503)), 'none-available', 502, 'upstream_error', undefined],
    ['credentials only', attempts(creds, creds), 'none-available', 502, 'upstream_error', undefined],
    ['credentials and 5xx', attempts(creds, r5xx(500)), 'retries-exhausted', 502, 'upstream_error', undefined],
    [
      'upstream 400 ends it',
      attempts(r5xx(503), { kind: 'fatal', status: 400 }),
      'fatal',
      400,
      'upstream_error',
      undefined,
    ],
    ['upstream 501 ends it', attempts({ kind: 'fatal', status: 501 }), 'fatal', 502, 'upstream_error', undefined],
    ['client left', attempts(r5xx(503)), 'cancelled', 499, 'upstream_error', undefined],
  ];
  for (const [name, records, reason, status, code, retryAfterMs] of table) {
    const error = finalError({ model: 'gpt-x', attempts: records, reason });
    assert.equal(error.status, status, name);
    assert.equal(error.code, code, name);
    assert.equal(error.retryAfterMs, retryAfterMs, name);
    assert.ok(error.code in ERROR_CODES, `${name}: ${error.code} is in the catalogue`);
    if (status === 429 || status >= 500)
      assert.equal(ERROR_CODES[error.code].status, status, `${name}: catalogue status`);
  }
});

test('finalError messages count attempts and name the model, nothing else', () => {
  const three = finalError({
    model: 'gpt-x',
    attempts: attempts(r5xx(500), r5xx(502), reset),
    reason: 'retries-exhausted',
  });
  assert.equal(
    three.message,
    "Upstream failure after 3 attempts on 2 deployments of model 'gpt-x'; last: a connection error.",
  );
  const one = finalError({ model: 'gpt-x', attempts: attempts(r429(1200)), reason: 'deadline' });
  assert.equal(one.message, "Upstream rate limit on 1 attempt on 1 deployment of model 'gpt-x'; retry after 2 s.");
  const none = finalError({ model: 'gpt-x', attempts: [], reason: 'none-available' });
  assert.match(none.message, /0 attempts/);
  const cred = finalError({ model: 'gpt-x', attempts: attempts(creds), reason: 'none-available' });
  assert.match(cred.message, /1 attempt\b/);
  for (const e of [three, one, none, cred]) assert.doesNotMatch(e.message, /https?:|sk-|key=/);
});

test('finalError refuses a request that succeeded', () => {
  assert.throws(() => finalError({ model: 'm', attempts: attempts({ kind: 'success' }), reason: 'succeeded' }));
});

test('what the caller is told about retrying: x-should-retry false, retry-after for a cooldown, Anthropic overloaded', () => {
  // An upstream 5xx that says not to retry is not retried.
  assert.deepEqual(classifyStatus(500, { 'x-should-retry': 'false' }), { kind: 'fatal', status: 500 });
  assert.equal(classifyStatus(500, { 'x-should-retry': 'true' }).kind, 'retryable');
  const noRetry = (records: AttemptRecord[], reason: PlanEndReason, availableInMs?: number | null) =>
    finalError({ model: 'm', attempts: records, reason, availableInMs });
  assert.equal(noRetry(attempts(creds), 'none-available').noRetry, true, 'refused credentials');
  assert.equal(noRetry(attempts({ kind: 'fatal', status: 501 }), 'fatal').noRetry, true, 'an upstream 501');
  assert.equal(noRetry(attempts(r5xx(500)), 'retries-exhausted').noRetry, undefined, 'a 5xx may pass');
  // Nothing available: the soonest cooldown's end, at least a second; null = only the operator can help.
  assert.equal(noRetry([], 'none-available', 12_345).retryAfterMs, 12_345);
  assert.equal(noRetry([], 'none-available', 0).retryAfterMs, 1_000);
  const operator = noRetry([], 'none-available', null);
  assert.equal(operator.noRetry, true);
  assert.match(operator.message, /credentials/);
  assert.equal(noRetry(attempts(r5xx(529)), 'retries-exhausted').overloaded, true);
  assert.equal(noRetry(attempts(r5xx(529), r5xx(500)), 'retries-exhausted').overloaded, undefined);
  // An upstream's own 504 is a timeout for the caller too.
  assert.equal(noRetry(attempts(r5xx(504)), 'retries-exhausted').status, 504);
});

test("isQuotaExhausted: OpenAI's insufficient_quota 429, and nothing else", () => {
  assert.equal(
    isQuotaExhausted(
      429,
      '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}',
    ),
    true,
  );
  assert.equal(isQuotaExhausted(429, '{"error": {"code": "insufficient_quota"}}'), true);
  assert.equal(isQuotaExhausted(429, '{"error":{"type":"rate_limit_error"}}'), false);
  assert.equal(isQuotaExhausted(400, '{"error":{"code":"insufficient_quota"}}'), false);
});
