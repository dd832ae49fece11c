// Issue 39 item 4: compressed bodies must not multiply memory before a limit is checked. A key with no
// usable model is refused before its body is decoded; each decoder streams into the body limit; all
// decoders share one budget (503 with retry-after past it). 100 parallel bombs keep RSS under 600 MB.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { zstdCompressSync, gzipSync } from 'node:zlib';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      models:
        '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }\n  - { name: gpt-other, deployments: [ { provider: mock, model: gpt-mock } ] }',
    }),
  });
});
after(async () => gw.cleanup());

/** Peak resident memory of the gateway process so far, in MB (Linux). */
function peakRssMb(): number {
  const status = readFileSync(`/proc/${gw.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

function post(
  key: string,
  body: Buffer,
  encoding: string,
): Promise<{ status: number; text: string; retryAfter: string | null }> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding },
    body,
  }).then(async (r) => ({ status: r.status, text: await r.text(), retryAfter: r.headers.get('retry-after') }));
}

test('100 parallel compression bombs keep the gateway under 600 MB; every one is answered', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const { key } = await gw.createKey({ name: 'rights', flags: ['--models', 'gpt-mock'] });
  const { key: none } = await gw.createKey({ name: 'no-rights', flags: ['--models', 'nothing-here-*'] });
  // 100 MB of JSON in about 3 KB: each decodes to the 10 MB body limit at most.
  const bomb = zstdCompressSync(
    Buffer.concat([
      Buffer.from('{"model":"gpt-mock","messages":[{"role":"user","content":"'),
      Buffer.alloc(100 * 1024 * 1024, 0x61),
      Buffer.from('"}]}'),
    ]),
  );
  assert.ok(bomb.length < 64 * 1024, `bomb of ${bomb.length} bytes`);
  const before = peakRssMb();
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => post(i % 2 === 0 ? key : none, bomb, 'zstd')),
  );
  const peak = peakRssMb();
  const statuses = results.map((r) => r.status);
  assert.ok(peak < 600, `peak RSS ${Math.round(peak)} MB (before: ${Math.round(before)} MB)`);
  results.forEach((r, i) => {
    if (i % 2 === 1) {
      assert.equal(r.status, 403, r.text);
      assert.match(r.text, /may not use any model/);
    } else {
      assert.ok(r.status === 413 || r.status === 503, `${r.status} ${r.text}`);
      if (r.status === 503) assert.equal(r.retryAfter, '1');
    }
  });
  assert.ok(statuses.includes(413), 'a bomb is stopped at the body limit');
  // Decoding still works for honest bodies once the bombs are gone.
  const honest = gzipSync(JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }));
  const ok = await post(key, honest, 'gzip');
  assert.equal(ok.status, 200, ok.text);
});

/** Bytes that claim to be gzip but are not: decoding them fails, so a refusal that names a limit came first. */
const UNDECODABLE = Buffer.from('not gzip at all, and never decoded');

test('a key whose rate window is full gets its 429 and retry-after before its compressed body is decoded', async () => {
  const { key } = await gw.createKey({ name: 'rpm-one', flags: ['--models', 'gpt-mock', '--rpm', '1'] });
  const undecodable = await post(key, UNDECODABLE, 'gzip');
  assert.equal(undecodable.status, 400, `a window with room lets the body on to decoding: ${undecodable.text}`);
  const ok = await post(
    key,
    gzipSync(JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] })),
    'gzip',
  );
  assert.equal(ok.status, 200, ok.text);
  const full = await post(key, UNDECODABLE, 'gzip');
  assert.equal(full.status, 429, full.text);
  assert.equal((JSON.parse(full.text) as { error: { code: string } }).error.code, 'rate_limit_requests');
  assert.ok(Number(full.retryAfter) >= 1 && Number(full.retryAfter) <= 60, `retry-after ${full.retryAfter}`);
});

test('on a Gemini path the model in the URL is checked before the compressed body is decoded', async () => {
  const { key } = await gw.createKey({ name: 'gemini-rights', flags: ['--models', 'gpt-mock'] });
  const gemini = (model: string) =>
    fetch(`${gw.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: UNDECODABLE,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
  const refused = await gemini('gpt-other');
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.text, /not allowed to use the model `gpt-other`/);
  const allowed = await gemini('gpt-mock');
  assert.equal(allowed.status, 400, `a model the key may use goes on to decoding: ${allowed.text}`);
});
