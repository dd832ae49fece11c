// Traces (issue 37): with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver on loopback, a
// chat request produces a server span continuing the caller's traceparent and a client span per upstream
// attempt, with the GenAI attributes; the upstream receives the client span's traceparent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFixture, call, type Fixture } from './fixture.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
}
interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: OtlpValue }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

/** An OTLP/HTTP JSON receiver: keeps every span and lets a test wait for the one it needs. */
class Receiver {
  readonly spans: OtlpSpan[] = [];
  readonly serviceNames = new Set<string>();
  readonly paths: string[] = [];
  readonly serviceVersions = new Set<string>();
  #waiters: Array<{ match: (s: OtlpSpan) => boolean; resolve: (s: OtlpSpan) => void }> = [];
  server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const rs of body.resourceSpans) {
        for (const a of rs.resource.attributes)
          if (a.key === 'service.name') this.serviceNames.add(a.value.stringValue ?? '');
          else if (a.key === 'service.version') this.serviceVersions.add(a.value.stringValue ?? '');
        for (const ss of rs.scopeSpans) for (const span of ss.spans) this.#add(span);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });

  #add(span: OtlpSpan): void {
    this.spans.push(span);
    this.#waiters = this.#waiters.filter((w) => (w.match(span) ? (w.resolve(span), false) : true));
  }

  waitFor(match: (s: OtlpSpan) => boolean): Promise<OtlpSpan> {
    const found = this.spans.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes.find((a) => a.key === key)?.value;
  if (v === undefined) return undefined;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue ?? v.doubleValue;
}

const STDIO_SERVER = new URL('../helpers/mcp-stdio-server.ts', import.meta.url).pathname;
const receiver = new Receiver();
let fx: Fixture;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

before(async () => {
  receiver.server.listen(0, '127.0.0.1');
  await once(receiver.server, 'listening');
  const { port } = receiver.server.address() as AddressInfo;
  fx = await startFixture({
    extraConfig: `mcp_servers:
  - { name: local, command: "${process.execPath}", args: ["${STDIO_SERVER}"], timeout_ms: 5000 }`,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'modelgate-test',
    },
  });
});

after(async () => {
  await fx?.close();
  receiver.server.close();
});

test('a chat request: server span continuing the caller, client span per attempt, GenAI attributes, traceparent upstream', {
  timeout: 30_000,
}, async () => {
  const r = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-up', messages: [{ role: 'user', content: 'trace me' }] },
    headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
  });
  assert.equal(r.status, 200, r.text);
  const usage = (r.json as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;

  const upstream = fx.up.requests.at(-1)!;
  const sent = String(upstream.headers.traceparent ?? '');
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(sent);
  assert.ok(m !== null, `the upstream got a traceparent: ${sent}`);
  assert.equal(m[1], CALLER_TRACE, 'the caller trace continues upstream');
  assert.notEqual(m[2], CALLER_SPAN, 'the upstream sees the gateway span as its parent');

  const server = await receiver.waitFor((s) => s.kind === 2 && attr(s, 'gen_ai.request.model') === 'gpt-up');
  const client = await receiver.waitFor((s) => s.kind === 3 && s.spanId === m[2]);
  assert.equal(server.traceId, CALLER_TRACE);
  assert.equal(server.parentSpanId, CALLER_SPAN);
  assert.equal(client.parentSpanId, server.spanId);
  assert.equal(server.name, 'POST /v1/chat/completions');
  for (const span of [server, client]) {
    assert.equal(attr(span, 'gen_ai.operation.name'), 'chat');
    assert.equal(attr(span, 'gen_ai.response.model'), 'upstream-gpt');
    assert.equal(attr(span, 'gen_ai.provider.name'), 'openai');
    assert.equal(attr(span, 'gen_ai.usage.input_tokens'), usage.prompt_tokens);
    assert.equal(attr(span, 'gen_ai.usage.output_tokens'), usage.completion_tokens);
  }
  assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
  assert.equal(attr(client, 'gen_ai.request.model'), 'upstream-gpt');
  assert.equal(attr(client, 'modelgate.deployment'), 'gpt-up#0');
  assert.equal(attr(server, 'http.response.status_code'), 200);
  assert.equal(attr(server, 'modelgate.deployment'), 'gpt-up#0');
  assert.equal(typeof attr(server, 'modelgate.time_to_first_token_ms'), 'number');
  assert.ok(receiver.serviceNames.has('modelgate-test'), [...receiver.serviceNames].join());
  // The resource names the build (package.json's version); the server span names the caller's key.
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.deepEqual([...receiver.serviceVersions], [version]);
  assert.equal(attr(server, 'modelgate.key.id'), fx.keyId);
  assert.equal(attr(server, 'modelgate.key.name'), 'e2e');
  assert.equal(attr(client, 'modelgate.key.id'), undefined, 'on the request span only');
  assert.match(receiver.paths[0], /^POST \/v1\/traces application\/json/);
});

test('a streamed request without a caller trace starts its own; a failed attempt gets its own span', {
  timeout: 30_000,
}, async () => {
  fx.up.enqueue({ kind: 'status', status: 500 });
  const r = await call(fx, {
    path: '/v1/chat/completions',
    body: { model: 'gpt-up', stream: true, messages: [{ role: 'user', content: 'again' }] },
  });
  assert.equal(r.status, 200, r.text);
  const sent = fx.up.requests.slice(-2).map((q) => String(q.headers.traceparent));
  const traceIds = new Set(sent.map((t) => t.split('-')[1]));
  assert.equal(traceIds.size, 1, 'both attempts are in one trace');
  const [traceId] = traceIds;
  assert.notEqual(traceId, CALLER_TRACE);
  const server = await receiver.waitFor((s) => s.kind === 2 && s.traceId === traceId);
  assert.equal(server.parentSpanId ?? '', '');
  assert.equal(attr(server, 'modelgate.stream'), true);
  assert.equal(attr(server, 'modelgate.attempts'), 2);
  const failed = await receiver.waitFor(
    (s) => s.kind === 3 && s.traceId === traceId && attr(s, 'http.response.status_code') === 500,
  );
  assert.equal(attr(failed, 'error.type'), '500');
  const answered = await receiver.waitFor(
    (s) => s.kind === 3 && s.traceId === traceId && attr(s, 'http.response.status_code') === 200,
  );
  assert.ok(Number(attr(answered, 'gen_ai.usage.output_tokens')) > 0);
});

test('requests answered without a model call get a server span too: listings, lookups, token counts', {
  timeout: 30_000,
}, async () => {
  const trace = 'aaf92f3577b34da6a3ce929d0e0e4736';
  const list = await call(fx, { path: '/v1/models', headers: { traceparent: `00-${trace}-${CALLER_SPAN}-01` } });
  assert.equal(list.status, 200);
  const listed = await receiver.waitFor((s) => s.kind === 2 && s.traceId === trace);
  assert.equal(listed.name, 'GET /v1/models');
  assert.equal(listed.parentSpanId, CALLER_SPAN);
  assert.equal(attr(listed, 'http.route'), '/v1/models');
  assert.equal(attr(listed, 'http.response.status_code'), 200);
  assert.equal(attr(listed, 'gen_ai.operation.name'), undefined, 'not a GenAI operation');
  assert.equal(attr(listed, 'error.type'), undefined);

  const missing = await call(fx, { path: '/v1/models/no-such-model' });
  assert.equal(missing.status, 404);
  const lookedUp = await receiver.waitFor(
    (s) => s.kind === 2 && attr(s, 'modelgate.request_id') === missing.headers.get('x-request-id'),
  );
  assert.equal(lookedUp.name, 'GET /v1/models/{id}', "the template, never the caller's path");
  assert.equal(attr(lookedUp, 'http.response.status_code'), 404);
  assert.equal(attr(lookedUp, 'error.type'), '404');

  const count = await call(fx, {
    path: '/v1/messages/count_tokens',
    headers: { 'anthropic-version': '2023-06-01' },
    body: { model: 'claude-up', messages: [{ role: 'user', content: 'count me' }] },
  });
  assert.equal(count.status, 200, count.text);
  const counted = await receiver.waitFor(
    (s) => s.kind === 2 && attr(s, 'modelgate.request_id') === count.headers.get('x-request-id'),
  );
  assert.equal(counted.name, 'POST /v1/messages/count_tokens');
  assert.equal(attr(counted, 'http.response.status_code'), 200);
});

test('an MCP tool call is an execute_tool span in the caller’s trace, with its server, tool, status and sizes', {
  timeout: 30_000,
}, async () => {
  const client = new Client({ name: 'trace-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${fx.gw.url}/mcp`), {
      requestInit: {
        headers: { Authorization: `Bearer ${fx.key}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      },
    }),
  );
  await client.callTool({ name: 'local__shout', arguments: { text: 'secret-argument-text' } });
  await client.close();
  const span = await receiver.waitFor((s) => s.name === 'execute_tool local__shout');
  assert.equal(span.traceId, CALLER_TRACE);
  assert.equal(span.parentSpanId, CALLER_SPAN);
  assert.equal(attr(span, 'gen_ai.operation.name'), 'execute_tool');
  assert.equal(attr(span, 'gen_ai.tool.name'), 'local__shout');
  assert.equal(attr(span, 'mcp.server.name'), 'local');
  assert.equal(attr(span, 'modelgate.mcp.status'), 'ok');
  assert.equal(
    attr(span, 'modelgate.mcp.request_bytes'),
    Buffer.byteLength(JSON.stringify({ text: 'secret-argument-text' })),
  );
  assert.ok(!JSON.stringify(span).includes('secret-argument-text'), 'never the arguments');
});
