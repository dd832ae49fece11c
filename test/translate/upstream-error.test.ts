// Upstream error bodies re-shaped into the client's dialect with statuses per DESIGN.md and text preserved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskKeyLike } from '../../src/core/mask-secrets.ts';
import { upstreamErrorToDialect } from '../../src/dialects/upstream-failure.ts';
import { anthropicErrorType } from '../../src/dialects/anthropic-messages/errors.ts';
import { openaiErrorType } from '../../src/dialects/openai-chat/errors.ts';
import { validateAnthropicError, validateOpenAIError } from '../helpers/schemas.ts';

const ANT_BODY = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' });
const OAI_BODY = (type: string, message: string, code: string | null, param: string | null = null) =>
  JSON.stringify({ error: { message, type, param, code } });

test('table: status and type per client dialect, upstream text preserved', () => {
  const rows: Array<{
    kind: 'openai' | 'anthropic';
    client: 'openai' | 'anthropic';
    status: number;
    body: string;
    want: Record<string, unknown>;
  }> = [
    {
      kind: 'anthropic',
      client: 'openai',
      status: 400,
      body: ANT_BODY('invalid_request_error', 'max_tokens: too big'),
      want: {
        status: 400,
        type: 'invalid_request_error',
        message: 'max_tokens: too big',
        code: 'invalid_request_error',
        param: null,
      },
    },
    {
      kind: 'anthropic',
      client: 'openai',
      status: 529,
      body: ANT_BODY('overloaded_error', 'Overloaded'),
      want: { status: 502, type: 'server_error', message: 'Overloaded', code: 'overloaded_error', param: null },
    },
    {
      kind: 'anthropic',
      client: 'openai',
      status: 429,
      body: ANT_BODY('rate_limit_error', 'Slow down'),
      want: { status: 429, type: 'rate_limit_error', message: 'Slow down', code: 'rate_limit_error', param: null },
    },
    {
      kind: 'openai',
      client: 'anthropic',
      status: 400,
      body: OAI_BODY(
        'invalid_request_error',
        "This model's maximum context length is 8192",
        'context_length_exceeded',
        'messages',
      ),
      want: {
        status: 400,
        type: 'invalid_request_error',
        message: "This model's maximum context length is 8192",
        code: null,
        param: null,
      },
    },
    {
      kind: 'openai',
      client: 'anthropic',
      status: 503,
      body: OAI_BODY('service_unavailable_error', 'Slow Down', 'slow_down'),
      want: { status: 502, type: 'overloaded_error', message: 'Slow Down', code: null, param: null },
    },
    // The caller's model is in the gateway's listing, so an upstream 404 is the operator's configuration: 502.
    {
      kind: 'openai',
      client: 'anthropic',
      status: 404,
      body: OAI_BODY('invalid_request_error', 'The model `x` does not exist', 'model_not_found'),
      want: { status: 502, type: 'api_error', message: 'The model `x` does not exist', code: null, param: null },
    },
    {
      kind: 'openai',
      client: 'anthropic',
      status: 504,
      body: 'gateway timeout',
      want: { status: 504, type: 'timeout_error', message: 'gateway timeout', code: null, param: null },
    },
    {
      kind: 'openai',
      client: 'openai',
      status: 400,
      body: OAI_BODY('invalid_request_error', 'bad', 'invalid_value', 'temperature'),
      want: { status: 400, type: 'invalid_request_error', message: 'bad', code: 'invalid_value', param: 'temperature' },
    },
  ];
  for (const row of rows) {
    const got = upstreamErrorToDialect({
      upstreamKind: row.kind,
      clientDialect: row.client,
      status: row.status,
      bodyText: row.body,
    });
    assert.deepEqual(got, row.want, `${row.kind}→${row.client} ${row.status}`);
    if (row.client === 'openai')
      validateOpenAIError({ error: { message: got.message, type: got.type, param: got.param, code: got.code } });
    else validateAnthropicError({ type: 'error', error: { type: got.type, message: got.message }, request_id: null });
  }
});

test("the gateway's own credentials refused upstream is a 502, never the caller's 401, and the key is masked", () => {
  const got = upstreamErrorToDialect({
    upstreamKind: 'openai',
    clientDialect: 'anthropic',
    status: 401,
    bodyText: OAI_BODY(
      'invalid_request_error',
      'Incorrect API key provided: sk-proj-abcdefghijklmnop1234.',
      'invalid_api_key',
    ),
  });
  assert.equal(got.status, 502);
  assert.equal(got.type, 'api_error');
  assert.match(got.message, /refused the gateway's credentials/);
  assert.equal(got.message.includes('abcdefghijklmnop'), false);
  assert.match(got.message, /sk-p…1234/);
});

test('empty or non-JSON bodies still give a message', () => {
  assert.equal(
    upstreamErrorToDialect({ upstreamKind: 'anthropic', clientDialect: 'openai', status: 500, bodyText: '' }).message,
    'upstream returned HTTP 500',
  );
  assert.equal(
    upstreamErrorToDialect({
      upstreamKind: 'openai',
      clientDialect: 'anthropic',
      status: 502,
      bodyText: '<html>Bad gateway</html>',
    }).message,
    '<html>Bad gateway</html>',
  );
  assert.equal(
    upstreamErrorToDialect({
      upstreamKind: 'openai',
      clientDialect: 'anthropic',
      status: 400,
      bodyText: '{"error":"plain"}',
    }).message,
    'plain',
  );
});

test('key-shaped text and Bearer tokens keep their first 4 and last 4 characters', () => {
  assert.equal(maskKeyLike('key sk-ant-api03-ABCDEFGHIJKLMNOP-wxyz here'), 'key sk-a…wxyz here');
  assert.equal(maskKeyLike('Authorization: Bearer abcdefghijklmnopqrstuvwxyz'), 'Authorization: Bearer abcd…wxyz');
});

test('an upstream error of megabytes is kept to its first 2,000 characters, its other fields to 200', () => {
  const huge = 'x'.repeat(5_000_000);
  for (const bodyText of [OAI_BODY('invalid_request_error', `bad ${huge}`, `c${huge}`), `bad ${huge}`]) {
    const got = upstreamErrorToDialect({ upstreamKind: 'openai', clientDialect: 'openai', status: 400, bodyText });
    assert.equal(got.message.length, 2001);
    assert.ok(got.message.startsWith('bad x') && got.message.endsWith('…'));
    assert.ok((got.code ?? '').length <= 201);
  }
  const short = upstreamErrorToDialect({
    upstreamKind: 'openai',
    clientDialect: 'openai',
    status: 400,
    bodyText: OAI_BODY('invalid_request_error', 'max_tokens is too large', 'bad'),
  });
  assert.equal(short.message, 'max_tokens is too large');
});

test('an upstream 403 stays a 403 permission error with the upstream text: it is often about the request, and SDKs retry a 502', () => {
  const got = upstreamErrorToDialect({
    upstreamKind: 'openai',
    clientDialect: 'anthropic',
    status: 403,
    bodyText: OAI_BODY('invalid_request_error', 'Input flagged by moderation', 'moderation'),
  });
  assert.equal(got.status, 403);
  assert.equal(got.type, 'permission_error');
  assert.match(got.message, /refused the request: Input flagged by moderation/);
});

test("another dialect's upstream error is named from the caller dialect's status table, as the gateway's own errors are", () => {
  const tooLarge = upstreamErrorToDialect({
    upstreamKind: 'openai',
    clientDialect: 'anthropic',
    status: 413,
    bodyText: OAI_BODY('invalid_request_error', 'too large', null),
  });
  assert.deepEqual([tooLarge.status, tooLarge.type], [413, anthropicErrorType(413)]);
  const forbidden = upstreamErrorToDialect({
    upstreamKind: 'anthropic',
    clientDialect: 'openai',
    status: 403,
    bodyText: ANT_BODY('permission_error', 'no'),
  });
  assert.deepEqual([forbidden.status, forbidden.type, forbidden.code], [403, openaiErrorType(403), 'permission_error']);
});
