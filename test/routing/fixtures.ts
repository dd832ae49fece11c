// Test doubles for routing: a hand-turned clock and config builders (the seeded random source is test/helpers/seeded-random.ts).
import type { DeploymentConfig, ModelConfig, ProviderConfig } from '../../src/core/config-types.ts';

export interface FakeClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function fakeClock(start = 1_000_000): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

export function provider(name: string, apiKeys: string[] = []): ProviderConfig {
  return {
    name,
    kind: 'openai',
    baseUrl: `http://127.0.0.1:9/${name}/v1`,
    apiKeys,
    headers: {},
    options: { apis: ['chat', 'embeddings'] },
    system: 'openai',
    inProcess: false,
  };
}

export interface DeploymentSpec {
  priority?: number;
  weight?: number;
  provider?: ProviderConfig;
}

export function model(specs: DeploymentSpec[], overrides: Partial<ModelConfig> = {}): ModelConfig {
  const deployments: DeploymentConfig[] = specs.map((spec, i) => ({
    id: `m#${i}`,
    provider: spec.provider ?? provider(`p${i}`),
    model: 'upstream-model',
    priority: spec.priority ?? 0,
    weight: spec.weight ?? 1,
  }));
  return {
    name: 'm',
    family: 'openai',
    mode: 'chat',
    price: null,
    deployments,
    timeouts: { connectMs: 5_000, firstByteMs: 60_000, idleMs: 30_000, totalMs: 600_000 },
    maxRetries: 5,
    ...overrides,
  };
}
