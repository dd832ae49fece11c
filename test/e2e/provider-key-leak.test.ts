// Issue 39, item 13: an upstream that echoes the gateway's provider key in any field of its error, in any
// case, in base64, or across the point where the gateway cuts long text, never gets a piece of it to a
// caller or into a log line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { Fault, MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

const KEY = 'sk-proj-Q7fzLw2mXc9RtUb4Hn6JkPa1Vy8Ds3Ge5Wq0Zi';
const PIECE = 12;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** Every 12-character piece of the key, and of its base64 forms (at each alignment), lower-cased. */
function pieces(): string[] {
  const forms = [
    KEY,
    b64(KEY).slice(0, -4),
    b64(`x${KEY}`).slice(4, -4),
    b64(`xy${KEY}`).slice(4, -4),
    b64(`Bearer ${KEY}`).slice(12, -4),
  ];
  const out: string[] = [];
  for (const f of forms) for (let i = 0; i + PIECE <= f.length; i++) out.push(f.slice(i, i + PIECE).toLowerCase());
  return out;
}
const PIECES = pieces();

function assertNoPiece(text: string, where: string): void {
  const lower = text.toLowerCase();
  const found = PIECES.find((p) => lower.includes(p));
  assert.equal(found, undefined, `${where} holds a piece of the provider key: ${found}\n${text.slice(0, 3000)}`);
}

let up: MockUpstream;
let gw: GatewayProcess;
let key: string;
before(async () => {
  up = await startMockUpstream();
  gw = await startGateway({
    configYaml: configYaml({
      // A provider per route: a refused key (401) takes its provider out of rotation for the rest of the run.
      providers: `  - { name: up1, kind: openai, base_url: "${up.url}/v1", api_key: "${KEY}" }
  - { name: up2, kind: openai, base_url: "${up.url}/v1", api_key: "${KEY}" }
  - { name: upa1, kind: anthropic, base_url: "${up.url}", api_key: "${KEY}" }
  - { name: upa2, kind: anthropic, base_url: "${up.url}", api_key: "${KEY}" }`,
      models: `  - { name: gpt-up, max_retries: 0, deployments: [ { provider: up1, model: upstream-gpt } ] }
  - { name: claude-via-openai, max_retries: 0, deployments: [ { provider: up2, model: openrouter-claude } ] }
  - { name: claude-up, max_retries: 0, deployments: [ { provider: upa1, model: claude-upstream-1 } ] }
  - { name: gpt-via-anthropic, max_retries: 0, deployments: [ { provider: upa2, model: claude-upstream-2 } ] }`,
    }),
  });
  key = (await gw.createKey({ name: 'leak' })).key;
});
after(async () => {
  await gw?.cleanup();
  await up?.close();
});

const upper = KEY.toUpperCase();
const long = (n: number): string => `${'x'.repeat(n)}${KEY} tail`;
const openaiBodies: unknown[] = [
  {
    error: {
      message: `bad key ${upper}`,
      param: KEY,
      code: KEY,
      type: KEY,
      detail: { nested: [KEY, { deeper: upper }] },
    },
  },
  { error: { message: long(1990), param: `messages.${KEY}`, code: 'x', type: 'invalid_request_error' } },
  { error: { message: long(295), type: 'invalid_request_error', param: null, code: null } },
  {
    error: {
      message: `auth was ${b64(`Bearer ${KEY}`)} / ${b64(KEY)} / ${b64(`u:${KEY}`)} / ${b64(`ab${KEY}`)}`,
      type: 'invalid_request_error',
    },
  },
  // JSON escapes: the key's text only appears once the string is read.
  `{"error":{"message":"escaped ${KEY.replace('Q', '\\u0051')}","type":"x"}}`,
  { error: `plain ${KEY}` },
  `text/plain ${long(2100)}`,
];
const anthropicBodies: unknown[] = [
  { type: 'error', error: { type: KEY, message: `nope ${upper}` } },
  { type: 'error', error: { type: 'invalid_request_error', message: long(1995) } },
];

async function send(path: string, model: string, stream = false): Promise<string> {
  const anthropic = path === '/v1/messages';
  const body = anthropic
    ? { model, max_tokens: 20, stream, messages: [{ role: 'user', content: 'hi' }] }
    : { model, stream, messages: [{ role: 'user', content: 'hi' }] };
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(anthropic ? { 'anthropic-version': '2023-06-01' } : {}),
    },
    body: JSON.stringify(body),
  });
  return `${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${await res.text()}`;
}

test('no 12-character piece of a provider key reaches a reply or a log line, whatever field or form it comes in', async () => {
  const replies: string[] = [];
  const routes: [string, string, unknown[]][] = [
    ['/v1/chat/completions', 'gpt-up', openaiBodies],
    ['/v1/messages', 'claude-via-openai', openaiBodies],
    ['/v1/messages', 'claude-up', anthropicBodies],
    ['/v1/chat/completions', 'gpt-via-anthropic', anthropicBodies],
  ];
  for (const [path, model, bodies] of routes) {
    // In-stream errors after the first byte, on the pass-through and the translated paths.
    for (const message of [`stream ${upper}`, long(1990), `b64 ${b64(KEY)}`]) {
      up.reset();
      up.enqueue({ kind: 'stream-error', afterEvents: 1, message });
      replies.push(await send(path, model, true));
    }
    for (const status of [400, 403, 500, 401]) {
      // Five 500s open the deployment's breaker, and the first 401 takes the key out of rotation: those
      // statuses get fewer bodies, so that each one reaches the upstream.
      for (const body of status === 401 ? bodies.slice(0, 1) : status === 500 ? bodies.slice(0, 4) : bodies) {
        up.reset();
        up.enqueue({ kind: 'status', status, body } satisfies Fault);
        replies.push(await send(path, model));
      }
    }
  }
  assert.equal(replies.filter((r) => r.startsWith('503 ')).length, 0, 'every case reached the upstream');
  assert.ok(
    replies.some((r) => r.startsWith('400 ')),
    'the upstream 400s reach the caller as 400s',
  );
  for (const r of replies) assertNoPiece(r, 'a reply');
  for (const line of gw.logs().split('\n')) assertNoPiece(line, 'a log line');
});
