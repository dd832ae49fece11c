// The ground rule end to end: requests of the wrong shape, on all four routes (both dialects, passed
// through and translated, streamed and not), from a key with a budget and a TPM limit so admission
// estimates every prompt, get an answer in the caller's dialect — never a 5xx, never a stream that
// ends in an error event. Seeded, so a failing case fails every run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, call, CROSS_DIALECT_MODELS, type Fixture } from './fixture.ts';
import { CHAT_REQUEST_SEED, MESSAGES_REQUEST_SEED, createMutator } from '../helpers/mutate-json.ts';

let fx: Fixture;
let key: string;
before(async () => {
  fx = await startFixture({ extraModels: CROSS_DIALECT_MODELS });
  ({ key } = await fx.gw.createKey({ name: 'mutations', flags: ['--budget-usd', '1000', '--tpm', '100000000'] }));
});
after(async () => fx.close());

const ROUTES = [
  { path: '/v1/chat/completions', seed: CHAT_REQUEST_SEED, model: 'gpt-up' },
  { path: '/v1/chat/completions', seed: CHAT_REQUEST_SEED, model: 'gpt-via-anthropic' },
  { path: '/v1/messages', seed: MESSAGES_REQUEST_SEED, model: 'claude-up' },
  { path: '/v1/messages', seed: MESSAGES_REQUEST_SEED, model: 'claude-via-openai' },
] as const;

test('400 mutated requests across the four routes: every answer is 200 or a 4xx, and no stream ends in an error', async () => {
  const { rand, pick, mutate } = createMutator(20261123);
  const seen = new Map<string, number>();
  for (let i = 0; i < 400; i++) {
    const route = pick(ROUTES);
    const body = mutate(route.seed);
    body.model = route.model;
    body.stream = rand() < 0.5;
    const r = await call(fx, { path: route.path, body, auth: key, headers: { 'anthropic-version': '2023-06-01' } });
    const what = `${route.model} ${body.stream ? 'stream' : 'json'} → ${r.status}`;
    seen.set(what, (seen.get(what) ?? 0) + 1);
    assert.ok(
      r.status === 200 || (r.status >= 400 && r.status < 500),
      `${what}: ${r.text.slice(0, 300)}\nfor ${JSON.stringify(body)}`,
    );
    if (r.status === 200 && body.stream === true) {
      assert.ok(
        !/^event: error$|^data: \{"error"/m.test(r.text),
        `${what} ended in an error: ${r.text.slice(-300)}\nfor ${JSON.stringify(body)}`,
      );
    }
  }
  // Both kinds of answer happened on every route, so the mutations neither all pass nor all fail.
  for (const route of ROUTES) {
    const answers = [...seen].filter(([k]) => k.startsWith(`${route.model} `)).map(([k]) => Number(k.split(' → ')[1]));
    assert.ok(answers.includes(200) && answers.some((s) => s >= 400), `${route.model}: ${JSON.stringify([...seen])}`);
  }
  assert.equal(
    (
      await call(fx, {
        path: '/v1/chat/completions',
        body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] },
        auth: key,
      })
    ).status,
    200,
    'still serving',
  );
});
