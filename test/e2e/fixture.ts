// A standard end-to-end setup: a mock upstream speaking both dialects, a gateway in front of it, a key.
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import type { MockUpstream } from '../helpers/mock-upstream-types.ts';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

export interface Fixture {
  up: MockUpstream;
  gw: GatewayProcess;
  key: string;
  keyId: string;
  close(): Promise<void>;
}

export const UPSTREAM_SECRET = 'sk-upstream-secret-0123456789abcdefXYZ';

/** `extraModels` for cross-dialect routes: an OpenAI-named model on the Anthropic-style upstream, and back. */
export const CROSS_DIALECT_MODELS = `  - { name: gpt-via-anthropic, deployments: [ { provider: upa, model: claude-upstream-2 } ] }
  - { name: claude-via-openai, deployments: [ { provider: up, model: openrouter-claude } ] }`;

/** `extraProviders` gets the mock upstream's URL (`http://127.0.0.1:PORT`) and returns YAML list items. */
export async function startFixture(
  opts: {
    extraModels?: string;
    extraProviders?: (upUrl: string) => string;
    extraConfig?: string;
    env?: Record<string, string>;
  } = {},
): Promise<Fixture> {
  const up = await startMockUpstream();
  const gw = await startGateway({
    env: opts.env,
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "${up.url}/v1", api_key: "${UPSTREAM_SECRET}" }
  - { name: upa, kind: anthropic, base_url: "${up.url}", api_key: "${UPSTREAM_SECRET}" }
${opts.extraProviders?.(up.url) ?? ''}`,
      models: `  - { name: gpt-up, price: { input: 1, output: 2 }, deployments: [ { provider: up, model: upstream-gpt } ] }
  - { name: claude-up, price: { input: 3, output: 15 }, deployments: [ { provider: upa, model: claude-upstream-1 } ] }
  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }
  - { name: claude-mock, deployments: [ { provider: mock, model: claude-mock } ] }
  - { name: secret-model, deployments: [ { provider: mock, model: secret } ] }
${opts.extraModels ?? ''}`,
      extra: opts.extraConfig,
    }),
  });
  const { key, id } = await gw.createKey({ name: 'e2e', flags: ['--models', 'gpt-up,claude-*,gpt-mock'] });
  return {
    up,
    gw,
    key,
    keyId: id,
    async close() {
      await gw.cleanup();
      await up.close();
    },
  };
}

/** A raw HTTP call to the gateway (for statuses and headers the SDKs hide). */
export async function call(
  fx: Fixture,
  opts: { path: string; method?: string; body?: unknown; headers?: Record<string, string>; auth?: string | null },
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.auth !== null) headers.authorization = `Bearer ${opts.auth ?? fx.key}`;
  const res = await fetch(fx.gw.url + opts.path, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
