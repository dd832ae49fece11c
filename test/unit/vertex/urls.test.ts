import assert from 'node:assert/strict';
import { test } from 'node:test';
import { vertexOrigin, vertexPath } from '../../../src/providers/vertex/urls.ts';

test('regional, global and multi-region origins, and a base_url override', () => {
  assert.equal(vertexOrigin('us-central1'), 'https://us-central1-aiplatform.googleapis.com');
  assert.equal(vertexOrigin('global'), 'https://aiplatform.googleapis.com');
  assert.equal(vertexOrigin('us'), 'https://aiplatform.us.rep.googleapis.com');
  assert.equal(vertexOrigin('eu'), 'https://aiplatform.eu.rep.googleapis.com');
  assert.equal(vertexOrigin('global', 'http://127.0.0.1:9/'), 'http://127.0.0.1:9');
});

test('Gemini and Claude paths per method', () => {
  const base = '/v1/projects/p1/locations/europe-west4/publishers';
  assert.equal(
    vertexPath('p1', 'europe-west4', 'gemini-2.5-pro', false),
    `${base}/google/models/gemini-2.5-pro:generateContent`,
  );
  assert.equal(
    vertexPath('p1', 'europe-west4', 'gemini-2.5-pro', true),
    `${base}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
  );
  assert.equal(
    vertexPath('p1', 'europe-west4', 'claude-sonnet-4-6', false),
    `${base}/anthropic/models/claude-sonnet-4-6:rawPredict`,
  );
  assert.equal(
    vertexPath('p1', 'europe-west4', 'claude-sonnet-4-6@20250514', true),
    `${base}/anthropic/models/claude-sonnet-4-6@20250514:streamRawPredict`,
  );
  assert.equal(
    vertexPath('p1', 'europe-west4', 'claude-sonnet-4-6', false, 'count-tokens'),
    `${base}/anthropic/models/count-tokens:rawPredict`,
  );
});
