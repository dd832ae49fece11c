// Routing end to end: three fault-injecting upstreams (A, B, C) as three deployments of each test model,
// in both dialects and across them (translated routes), behind a real gateway process with small timeouts.
import { DatabaseSync } from 'node:sqlite';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { Fault, MockUpstream } from '../helpers/mock-upstream-types.ts';
import assert from 'node:assert/strict';
import { startGateway, configYaml, waitUntil, type GatewayProcess } from '../helpers/gateway-process.ts';

export const SECRET = 'sk-routing-secret-0123456789abcdefQRS';
export const TIMEOUTS = { connectMs: 500, firstByteMs: 400, idleMs: 400, totalMs: 5_000 };
export const NAMES = ['A', 'B', 'C'] as const;
export type Name = (typeof NAMES)[number];

/** Client dialect × upstream kind: the model to ask for, the path, and how deployments are named. */
export interface Route {
  label: string;
  model: string;
  path: '/v1/chat/completions' | '/v1/messages';
  client: 'openai' | 'anthropic';
}

export const ROUTES: readonly Route[] = [
  { label: 'openai pass-through', model: 'r-oai', path: '/v1/chat/completions', client: 'openai' },
  { label: 'anthropic pass-through', model: 'claude-r-ant', path: '/v1/messages', client: 'anthropic' },
  { label: 'openai → anthropic upstream', model: 'r-x-ant', path: '/v1/chat/completions', client: 'openai' },
  { label: 'anthropic → openai upstream', model: 'claude-r-x-oai', path: '/v1/messages', client: 'anthropic' },
];

export interface RoutingFixture {
  ups: MockUpstream[];
  gw: GatewayProcess;
  key: string;
  /** Faults for the next requests to each upstream (consumed one per request); clears what was tried. */
  faults(plan: Partial<Record<Name, Fault[]>>): void;
  /** Which upstreams received a request, in arrival order, since the last `faults()`. */
  tried(): Name[];
  send(route: Route, opts?: { stream?: boolean; signal?: AbortSignal }): Promise<Response>;
  usageRow(requestId: string): Promise<UsageRow>;
  /** Forgets what every deployment's health learnt (the admin API's reset), e.g. the rest a 429 asked for. */
  resetHealth(): Promise<void>;
  close(): Promise<void>;
}

const ADMIN_TOKEN = 'adm-routing-0123456789abcdef';

export interface UsageRow {
  status: number;
  attempts: number;
  deployment: string | null;
  input_tokens: number;
  output_tokens: number;
  error_code: string | null;
}

function deployments(kind: 'oai' | 'ant', upstreamModel: string): string {
  return NAMES.map(
    (n, i) => `{ provider: ${n.toLowerCase()}-${kind}, model: ${upstreamModel}-${n}, priority: ${i} }`,
  ).join(', ');
}

export async function startRoutingFixture(
  opts: { env?: Record<string, string>; maxRetries?: number } = {},
): Promise<RoutingFixture> {
  const ups = await Promise.all(NAMES.map(() => startMockUpstream({ chunkCount: 6 })));
  const providers = NAMES.flatMap((n, i) => [
    `  - { name: ${n.toLowerCase()}-oai, kind: openai, base_url: "${ups[i].url}/v1", api_key: "${SECRET}" }`,
    `  - { name: ${n.toLowerCase()}-ant, kind: anthropic, base_url: "${ups[i].url}", api_key: "${SECRET}" }`,
  ]).join('\n');
  const t = `{ connect_ms: ${TIMEOUTS.connectMs}, first_byte_ms: ${TIMEOUTS.firstByteMs}, idle_ms: ${TIMEOUTS.idleMs}, total_ms: ${TIMEOUTS.totalMs} }`;
  const retries = opts.maxRetries ?? 2;
  const model = (name: string, kind: 'oai' | 'ant'): string =>
    `  - { name: ${name}, price: { input: 1, output: 2 }, max_retries: ${retries}, timeouts: ${t}, deployments: [ ${deployments(kind, 'up')} ] }`;
  const gw = await startGateway({
    env: {
      MODELGATE_BREAKER_FAILURES: '1000',
      MODELGATE_BREAKER_MIN_CALLS: '1000',
      MODELGATE_LOG_LEVEL: 'info',
      MODELGATE_ADMIN_TOKEN: ADMIN_TOKEN,
      ...opts.env,
    },
    configYaml: configYaml({
      providers,
      models: [
        model('r-oai', 'oai'),
        model('claude-r-ant', 'ant'),
        model('r-x-ant', 'ant'),
        model('claude-r-x-oai', 'oai'),
        `  - { name: r-single, max_retries: 3, timeouts: ${t}, deployments: [ { provider: a-oai, model: up-single } ] }`,
      ].join('\n'),
    }),
  });
  const { key } = await gw.createKey({ name: 'routing' });
  let queues: Partial<Record<Name, Fault[]>> = {};
  let arrivals: Name[] = [];
  ups.forEach((u, i) =>
    u.setBehaviour(() => {
      const name = NAMES[i];
      arrivals.push(name);
      return queues[name]?.shift();
    }),
  );
  const db = (): DatabaseSync => new DatabaseSync(gw.dbPath, { readOnly: true });
  return {
    ups,
    gw,
    key,
    faults(plan) {
      queues = Object.fromEntries(Object.entries(plan).map(([k, v]) => [k, [...(v ?? [])]]));
      arrivals = [];
    },
    tried: () => [...arrivals],
    async resetHealth() {
      const res = await fetch(`${gw.url}/admin/deployments`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const { data } = (await res.json()) as { data: { id: string }[] };
      for (const { id } of data) {
        const reset = await fetch(`${gw.url}/admin/deployments/${encodeURIComponent(id)}/reset`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(reset.status, 200, await reset.text());
      }
    },
    async send(route, o = {}) {
      const body =
        route.client === 'openai'
          ? { model: route.model, stream: o.stream ?? false, messages: [{ role: 'user', content: 'Hello there' }] }
          : {
              model: route.model,
              stream: o.stream ?? false,
              max_tokens: 64,
              messages: [{ role: 'user', content: 'Hello there' }],
            };
      return fetch(gw.url + route.path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
        signal: o.signal,
      });
    },
    async usageRow(requestId) {
      let row: UsageRow | undefined;
      await waitUntil(
        () => {
          const conn = db();
          try {
            row = conn
              .prepare(
                'SELECT status, attempts, deployment, input_tokens, output_tokens, error_code FROM usage WHERE request_id = ?',
              )
              .get(requestId) as UsageRow | undefined;
          } finally {
            conn.close();
          }
          return row !== undefined;
        },
        `the usage row of ${requestId}`,
        5_000,
      );
      return row!;
    },
    async close() {
      await gw.cleanup();
      await Promise.all(ups.map((u) => u.close()));
    },
  };
}
