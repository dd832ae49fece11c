// Issue 35: the Anthropic SDK of today (1.x, which sends anthropic-version 2026-10-21) and the 0.x line
// (2023-06-01), both with authToken, on both routes: a Claude model passed through to an Anthropic-style
// upstream and one served by an OpenAI-style upstream. create, stream with a tool, a tool round trip, countTokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { startFixture, CROSS_DIALECT_MODELS, type Fixture } from './fixture.ts';
import { validateMessage, validateMessageStreamEvent } from '../helpers/schemas.ts';

let fx: Fixture;
before(async () => {
  fx = await startFixture({ extraModels: CROSS_DIALECT_MODELS });
});
after(async () => fx.close());

/** The calls both majors share, typed loosely enough for either. */
type Client = Pick<Anthropic, 'messages'>;

const SDKS: { name: string; version: string; make: (url: string, key: string) => Client }[] = [
  {
    name: '@anthropic-ai/sdk 1.x',
    version: '2026-10-21',
    make: (baseURL, authToken) => new Anthropic({ baseURL, authToken, apiKey: null, maxRetries: 0 }),
  },
  {
    name: '@anthropic-ai/sdk 0.x',
    version: '2023-06-01',
    make: (baseURL, authToken) =>
      new Anthropic0({ baseURL, authToken, apiKey: null, maxRetries: 0 }) as unknown as Client,
  },
];

const ROUTES = [
  {
    name: 'passed through to an Anthropic-style upstream',
    model: 'claude-up',
    path: '/v1/messages',
    upstreamModel: 'claude-upstream-1',
  },
  {
    name: 'served by an OpenAI-style upstream',
    model: 'claude-via-openai',
    path: '/v1/chat/completions',
    upstreamModel: 'openrouter-claude',
  },
];

const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

for (const sdk of SDKS) {
  for (const route of ROUTES) {
    test(`${sdk.name}, a Claude model ${route.name}: create, stream with a tool, a tool round trip, countTokens`, async () => {
      const client = sdk.make(fx.gw.url, fx.key);
      const msg = await client.messages.create({
        model: route.model,
        max_tokens: 200,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      validateMessage(msg);
      assert.equal(msg.model, route.model);
      assert.equal(msg.stop_reason, 'end_turn');
      let seen = fx.up.requests.at(-1)!;
      assert.equal(seen.path, route.path);
      assert.equal((seen.json as { model: string }).model, route.upstreamModel);
      if (route.path === '/v1/messages')
        assert.equal(seen.headers['anthropic-version'], sdk.version, 'the caller’s version is forwarded');

      const stream = client.messages.stream({
        model: route.model,
        max_tokens: 200,
        tools,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      });
      const types: string[] = [];
      stream.on('streamEvent', (ev) => {
        validateMessageStreamEvent(ev);
        types.push(ev.type);
      });
      const first = await stream.finalMessage();
      assert.equal(types[0], 'message_start');
      assert.equal(types.at(-1), 'message_stop');
      assert.equal(first.stop_reason, 'tool_use');
      const use = first.content.find((b) => b.type === 'tool_use');
      assert.ok(use && use.type === 'tool_use' && use.name === 'get_weather', JSON.stringify(first.content));
      assert.equal(typeof (use.input as { city?: unknown }).city, 'string');

      const second = await client.messages.create({
        model: route.model,
        max_tokens: 200,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp":21}' }] },
        ],
      });
      validateMessage(second);
      assert.equal(second.stop_reason, 'end_turn');
      seen = fx.up.requests.at(-1)!;
      const sentText = seen.body.toString('utf8');
      assert.ok(
        sentText.includes(use.id) && sentText.includes('{\\"temp\\":21}'),
        `the tool result reached the upstream: ${sentText}`,
      );

      const counted = await client.messages.countTokens({
        model: route.model,
        messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
      });
      assert.ok(counted.input_tokens > 0);
    });
  }
}

test('@anthropic-ai/sdk 1.x: temperature under 2026-10-21 is a 400 naming it; the 0.x line may still send it', async () => {
  const client = new Anthropic({ baseURL: fx.gw.url, authToken: fx.key, apiKey: null, maxRetries: 0 });
  const before = fx.up.requests.length;
  // 1.x's types no longer have the field; a caller ported from 0.x may still send it.
  const params = {
    model: 'claude-up',
    max_tokens: 20,
    temperature: 1,
    messages: [{ role: 'user', content: 'Hi' }],
  } as unknown as Anthropic.MessageCreateParamsNonStreaming;
  await assert.rejects(client.messages.create(params), (err: unknown) => {
    assert.ok(err instanceof Anthropic.BadRequestError);
    assert.equal(err.type, 'invalid_request_error');
    assert.match(String(err.apiMessage), /^temperature: .*2026-10-21/);
    return true;
  });
  assert.equal(fx.up.requests.length, before, 'refused before any upstream call');
  const old = new Anthropic0({ baseURL: fx.gw.url, authToken: fx.key, apiKey: null, maxRetries: 0 });
  const ok = await old.messages.create({
    model: 'claude-up',
    max_tokens: 20,
    temperature: 1,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  assert.equal(ok.type, 'message');
});
