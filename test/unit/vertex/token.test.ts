import assert from 'node:assert/strict';
import { test } from 'node:test';
import { vertexTokenSource } from '../../../src/providers/vertex/token.ts';
import { startMockGoogleToken } from '../../helpers/mock-google-token.ts';

test("a service-account file's token_uri gets the exchange, and the token is reused", async (t) => {
  const google = await startMockGoogleToken();
  t.after(() => google.close());
  const source = await vertexTokenSource(await google.serviceAccountFile(), {});
  const a = await source();
  assert.ok(google.isIssued(a));
  assert.equal(await source(), a);
  assert.equal(google.exchanges, 1);
});

test('GOOGLE_APPLICATION_CREDENTIALS naming a service-account file is honoured the same way', async (t) => {
  const google = await startMockGoogleToken();
  t.after(() => google.close());
  const source = await vertexTokenSource(undefined, {
    GOOGLE_APPLICATION_CREDENTIALS: await google.serviceAccountFile(),
  });
  assert.ok(google.isIssued(await source()));
});

test('a token close to expiry is fetched again', async (t) => {
  // Tokens that live 60 s are inside the five-minute refresh window at once.
  const google = await startMockGoogleToken(60);
  t.after(() => google.close());
  const source = await vertexTokenSource(await google.serviceAccountFile(), {});
  const a = await source();
  const b = await source();
  assert.notEqual(a, b);
  assert.equal(google.exchanges, 2);
});

test('an unreadable credentials file is named by path, not content', async () => {
  await assert.rejects(
    vertexTokenSource('/nonexistent/sa.json', {}),
    /cannot read the credentials file \/nonexistent\/sa.json: ENOENT/,
  );
});
