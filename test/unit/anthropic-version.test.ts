// On literal inputs: the anthropic-version values, the rules of 2026-10-21, mid-conversation system items
// in the messages validator, Anthropic's error details kept from an upstream's body, the version sent upstream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import { checkAnthropicVersion, checkVersionRules } from '../../src/dialects/anthropic-messages/version.ts';
import { validateMessagesRequest } from '../../src/dialects/anthropic-messages/validate.ts';
import { anthropicErrorDetails } from '../../src/dialects/anthropic-messages/error-details.ts';
import { renderError } from '../../src/dialects/render-error.ts';

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return err;
  }
  assert.fail('expected a refusal');
}

test('checkAnthropicVersion: the two values pass, anything else is a 400 naming both', () => {
  assert.equal(checkAnthropicVersion({ 'anthropic-version': '2023-06-01' }), '2023-06-01');
  assert.equal(checkAnthropicVersion({ 'anthropic-version': '2026-10-21' }), '2026-10-21');
  assert.equal(refusal(() => checkAnthropicVersion({})).code, 'missing_version_header');
  for (const v of ['2026-10-22', '2023-06-01 ', 'latest']) {
    const e = refusal(() => checkAnthropicVersion({ 'anthropic-version': v }));
    assert.equal(e.status, 400);
    assert.match(e.message, /2023-06-01 or 2026-10-21/);
  }
});

test('checkVersionRules: nothing under 2023-06-01; under 2026-10-21 the removed fields and block rules', () => {
  const body = {
    temperature: 1,
    top_p: 1,
    top_k: 0,
    messages: [{ role: 'assistant', content: [{ type: 'document' }] }],
  };
  checkVersionRules(body, '2023-06-01');
  for (const field of ['temperature', 'top_p', 'top_k']) {
    const e = refusal(() => checkVersionRules({ [field]: 0, messages: [] }, '2026-10-21'));
    assert.equal(e.param, field);
  }
  assert.equal(
    refusal(() =>
      checkVersionRules(
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'document' }] },
          ],
        },
        '2026-10-21',
      ),
    ).param,
    'messages.1.content.1',
  );
  const cited = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'a', citations: [{ type: 'char_location' }] }] }],
  };
  assert.equal(refusal(() => checkVersionRules(cited, '2026-10-21')).param, 'messages.0.content.0.citations');
  // What stays allowed: a user's document, empty or absent citations, an assistant's cited text.
  checkVersionRules(
    {
      messages: [
        { role: 'user', content: [{ type: 'document' }, { type: 'text', text: 'a', citations: [] }] },
        { role: 'assistant', content: [{ type: 'text', text: 'b', citations: [{}] }] },
      ],
    },
    '2026-10-21',
  );
});

test('validateMessagesRequest: system items anywhere; the user-first and alternation rules hold around them', () => {
  const base = { model: 'claude-x', max_tokens: 5 };
  const ok = [
    [
      { role: 'user', content: 'a' },
      { role: 'system', content: 's' },
      { role: 'assistant', content: 'b' },
      { role: 'system', content: [{ type: 'text', text: 't' }] },
      { role: 'user', content: 'c' },
    ],
    [
      { role: 'system', content: 's' },
      { role: 'user', content: 'a' },
    ],
  ];
  for (const messages of ok) assert.equal(validateMessagesRequest({ ...base, messages }).model, 'claude-x');
  const bad: [unknown[], RegExp][] = [
    [
      [
        { role: 'system', content: 's' },
        { role: 'assistant', content: 'b' },
      ],
      /^messages\.1\.role: the first message must use the "user" role \(system messages aside\)/,
    ],
    [
      [
        { role: 'user', content: 'a' },
        { role: 'system', content: 's' },
        { role: 'user', content: 'b' },
      ],
      /^messages\.2\.role: roles must alternate/,
    ],
    [
      [
        { role: 'user', content: 'a' },
        { role: 'system', content: [{ type: 'image' }] },
      ],
      /^messages\.1\.content: a system message holds/,
    ],
    [[{ role: 'developer', content: 'a' }], /"user", "assistant" or "system"/],
  ];
  for (const [messages, re] of bad)
    assert.match(refusal(() => validateMessagesRequest({ ...base, messages })).message, re);
  assert.equal(
    refusal(() => validateMessagesRequest({ ...base, temperature: 0.5, messages: ok[1] }, '2026-10-21')).param,
    'temperature',
  );
});

test('anthropicErrorDetails: an upstream body’s error.details, masked, and rendered for an Anthropic caller', () => {
  const body = JSON.stringify({
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: 'no',
      details: { error_code: 'mid_conversation_system_not_supported', hint: 'key sk-secret' },
    },
  });
  const details = anthropicErrorDetails(body, (t) => t.replace('sk-secret', 'sk-…'));
  assert.deepEqual(details, { error_code: 'mid_conversation_system_not_supported', hint: 'key sk-…' });
  for (const text of [
    '',
    'not json',
    '{"error":{"details":"a string"}}',
    JSON.stringify({ error: { details: { big: 'x'.repeat(3000) } } }),
  ]) {
    assert.equal(
      anthropicErrorDetails(text, (t) => t),
      null,
      text.slice(0, 40),
    );
  }
  const err = new GatewayError('invalid_request', {
    message: 'no',
    upstreamType: 'invalid_request_error',
    upstreamDetails: details,
  });
  assert.deepEqual(JSON.parse(renderError('anthropic', err, 'req_1')).error, {
    type: 'invalid_request_error',
    message: 'no',
    details,
  });
  assert.equal(JSON.parse(renderError('openai', err, 'req_1')).error.details, undefined);
});

test('anthropic_version in a provider: loaded, checked, and sent when no caller version is forwarded', async () => {
  const { parseConfigText } = await import('../../src/config/load.ts');
  const { providerSpec } = await import('../../src/registry.ts');
  const yaml = (extra: string): string =>
    `providers:\n  - { name: a, kind: anthropic, base_url: "http://x", api_key: "k"${extra} }\n  - { name: d, kind: anthropic, base_url: "http://y" }\nmodels:\n  - { name: claude-a, deployments: [ { provider: a, model: m }, { provider: d, model: m } ] }\n`;
  const c = parseConfigText(yaml(', anthropic_version: "2026-10-21"'), { source: 'x.yaml', env: {} });
  const [named, plain] = c.providers;
  assert.deepEqual(named.options, { version: '2026-10-21' });
  assert.deepEqual(plain.options, { version: undefined });
  assert.throws(
    () => parseConfigText(yaml(', anthropic_version: "2024-01-01"'), { source: 'x.yaml', env: {} }),
    /anthropic_version/,
  );
  const upstreamHeaders = (p: typeof named, forward: Record<string, string>) =>
    providerSpec(p).headers(p, { apiKey: 'k', forward });
  // Translated (nothing forwarded): the provider's version, else the default.
  assert.equal(upstreamHeaders(named, {})['anthropic-version'], '2026-10-21');
  assert.equal(upstreamHeaders(plain, {})['anthropic-version'], '2023-06-01');
  // Pass-through: the caller's version and beta, whatever the provider names.
  const passed = upstreamHeaders(named, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'b1' });
  assert.equal(passed['anthropic-version'], '2023-06-01');
  assert.equal(passed['anthropic-beta'], 'b1');
});
