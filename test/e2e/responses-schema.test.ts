// Translated Responses replies are schema-complete: every field of the response object (the request
// echoes OpenResponses checks for included), function tools with `strict`, and `usage` an object on every
// streamed response.* event (zeros until known) — against the official OpenAPI schema, strictly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';
import { createValidator, parseSseText, validateResponseStreamEvent } from '../helpers/schemas.ts';

const validateResponseStrict = createValidator('openai', 'Response', { requireNullable: true });
/** Fields of the response object that OpenResponses requires beyond the OpenAPI document's `required`. */
const COMPLETE_FIELDS = [
  'presence_penalty',
  'frequency_penalty',
  'top_logprobs',
  'max_tool_calls',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
  'truncation',
  'store',
  'background',
  'reasoning',
  'text',
  'usage',
  'max_output_tokens',
  'previous_response_id',
];

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: chat, kind: openai, base_url: "${up.url}/v1", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }
  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "sk-upstream-secret-0123456789abcdefXYZ" }`,
      models: `  - { name: gpt-chat, deployments: [ { provider: chat, model: gpt-up-chat } ] }
  - { name: claude-x, deployments: [ { provider: upa, model: claude-up } ] }
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }`,
    }),
  });
  ({ key } = await gw.createKey({ name: 'schema' }));
});
after(async () => {
  await gw.cleanup();
  await up.close();
});

const TOOLS = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

async function create(body: object): Promise<Response> {
  return fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

for (const model of ['gpt-chat', 'claude-x', 'gpt-mock']) {
  test(`${model}: a whole reply carries every field, tools with strict`, async () => {
    up.reset();
    const res = await create({ model, input: 'hi', tools: TOOLS, prompt_cache_key: 'pck-1', safety_identifier: 'u1' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown> & { tools: { strict: unknown }[] };
    validateResponseStrict(body);
    for (const f of COMPLETE_FIELDS) assert.ok(f in body, `${f} is present`);
    assert.equal(body.prompt_cache_key, 'pck-1');
    assert.equal(body.safety_identifier, 'u1');
    assert.equal(body.presence_penalty, 0);
    assert.equal(body.tools[0].strict, null);
  });

  test(`${model}: streamed response.created and response.in_progress carry usage as an object`, async () => {
    up.reset();
    const res = await create({ model, input: 'hi', stream: true });
    assert.equal(res.status, 200);
    const events = parseSseText(await res.text())
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data) as { type: string; response?: Record<string, unknown> });
    for (const e of events) validateResponseStreamEvent(e);
    for (const type of ['response.created', 'response.in_progress']) {
      const e = events.find((x) => x.type === type);
      assert.ok(e?.response, type);
      validateResponseStrict(e.response);
      assert.deepEqual(
        { input: (e.response.usage as { input_tokens: number }).input_tokens },
        { input: 0 },
        `${type}: zeros until known`,
      );
      for (const f of COMPLETE_FIELDS) assert.ok(f in e.response, `${type}: ${f} is present`);
    }
    const done = events.find((x) => x.type === 'response.completed');
    assert.ok(((done?.response?.usage as { output_tokens: number }).output_tokens ?? 0) > 0);
  });
}
