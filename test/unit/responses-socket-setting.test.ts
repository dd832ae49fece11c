// `responses_websocket` on kind openai: its default by host, where the socket goes, the providers and
// deployments that serve none, the finding for a setting that cannot apply, and which refused upgrades
// say "no WebSocket here" (remembered under `auto`) rather than "not now".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load.ts';
import { checkConfig } from '../../src/config/check.ts';
import { providerSpec } from '../../src/registry.ts';
import { refusalMeansUnserved } from '../../src/upstream/responses-socket.ts';

const config = (provider: string) =>
  parseConfigText(
    `providers:\n  - { name: p, kind: openai, api_key: k, ${provider} }\nmodels:\n  - { name: m, deployments: [ { provider: p, model: up } ] }\n`,
    { source: 'x.yaml', env: {} },
  );

const socketOf = (provider: string) => {
  const c = config(provider);
  const p = c.providers[0];
  return providerSpec(p).responsesSocket?.(p, c.models[0].deployments[0]) ?? null;
};

test('api.openai.com is tried by default; another host is not unless it says so', () => {
  assert.deepEqual(socketOf('base_url: "https://api.openai.com/v1", apis: [responses]'), {
    url: 'wss://api.openai.com/v1/responses',
    mode: 'probe',
  });
  assert.equal(socketOf('base_url: "https://llm.example/v1", apis: [responses]'), null);
  assert.deepEqual(socketOf('base_url: "http://127.0.0.1:8000/v1", apis: [responses], responses_websocket: true'), {
    url: 'ws://127.0.0.1:8000/v1/responses',
    mode: 'known',
  });
  assert.deepEqual(
    socketOf('base_url: "https://llm.example/v1", apis: [chat, responses], responses_websocket: auto')?.mode,
    'probe',
  );
  assert.equal(socketOf('base_url: "https://api.openai.com/v1", apis: [responses], responses_websocket: false'), null);
});

test('an upstream whose apis leave out responses serves no socket, and `true` there is a finding', () => {
  assert.equal(socketOf('base_url: "https://api.openai.com/v1"'), null);
  const c = config('base_url: "https://llm.example/v1", responses_websocket: true');
  assert.ok(
    checkConfig(c).some((f) => /responses_websocket is true but `apis` leaves out 'responses'/.test(f.message)),
  );
  assert.throws(
    () => config('base_url: "https://llm.example/v1", responses_websocket: yes'),
    /responses_websocket is auto, true or false/,
  );
});

test('refusals that mean "no WebSocket here" are told from "not now"', () => {
  for (const status of [200, 400, 404, 405, 426, 501]) assert.equal(refusalMeansUnserved(status), true, String(status));
  for (const status of [401, 403, 408, 429, 500, 502, 503])
    assert.equal(refusalMeansUnserved(status), false, String(status));
});
