// gen_ai.operation.name, as the GenAI metrics and spans label a generation endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationName } from '../../src/observability/gen-ai-metrics.ts';

test('operationName: Gemini generation on v1 and v1beta is generate_content, embeddings embeddings, the rest chat', () => {
  const cases: Array<[string, string]> = [
    ['/v1/chat/completions', 'chat'],
    ['/v1/messages', 'chat'],
    ['/v1/responses', 'chat'],
    ['/v1/embeddings', 'embeddings'],
    ['/v1beta/models/{model}:generateContent', 'generate_content'],
    ['/v1beta/models/{model}:streamGenerateContent', 'generate_content'],
    ['/v1/models/{model}:generateContent', 'generate_content'],
    ['/v1/models/{model}:streamGenerateContent', 'generate_content'],
  ];
  for (const [endpoint, want] of cases) assert.equal(operationName(endpoint), want, endpoint);
});
