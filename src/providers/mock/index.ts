// kind mock: the built-in deterministic model, answered in-process in whichever dialect it is called with
// (embeddings too): every route to it is same-dialect. `mock:` paces it for benchmarks and tests.
import { z } from 'zod';
import type { ProviderSpec } from '../../spec/provider.ts';
import { callMockProvider, type MockOptions } from './mock-provider.ts';

const nonNegInt = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number().int().nonnegative(),
);
const positiveInt = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number().int().positive(),
);

export const MOCK_DEFAULTS: Readonly<MockOptions> = Object.freeze({ latencyMs: 0, chunkDelayMs: 0, replyWords: 12 });

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export const mockProvider: ProviderSpec<MockOptions> = {
  kind: 'mock',
  configKeys: {
    mock: z
      .strictObject({
        latency_ms: nonNegInt.optional(),
        chunk_delay_ms: nonNegInt.optional(),
        reply_words: positiveInt.optional(),
      })
      .optional(),
  },
  requiresBaseUrl: false,
  options(raw) {
    const m = raw.mock as { latency_ms?: number; chunk_delay_ms?: number; reply_words?: number } | undefined;
    return {
      latencyMs: m?.latency_ms ?? MOCK_DEFAULTS.latencyMs,
      chunkDelayMs: m?.chunk_delay_ms ?? MOCK_DEFAULTS.chunkDelayMs,
      replyWords: m?.reply_words ?? MOCK_DEFAULTS.replyWords,
    };
  },
  upstreamDialect: (endpoint) => endpoint,
  embeddingsDialect: () => 'openai',
  keepsResponses: false,
  countsTokens: () => false,
  target: () => ({ origin: 'http://mock.invalid', path: '/' }),
  headers: () => NO_HEADERS,
  call: callMockProvider,
  system: 'modelgate.mock',
};
