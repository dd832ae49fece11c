// Entries added at run time: credentials sealed under the key and bound to their place, masked in replies,
// kept when a masked value is sent back; the merged configuration names a database entry by its name in
// the start's messages; models_source decides which entries count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  encryptionKey,
  keepMaskedCredentials,
  maskCredentials,
  openCredentials,
  sealCredentials,
} from '../../src/config/sealed-credentials.ts';
import { mergedConfig } from '../../src/config/merged-config.ts';
import { ConfigError } from '../../src/config/load.ts';

const KEY = randomBytes(32);
const SECRET = 'sk-abcd-0123456789-wxyz';
const provider = {
  name: 'p',
  kind: 'openai',
  base_url: 'https://api.example.com/v1',
  api_key: SECRET,
  api_keys: ['second-key-0123456789'],
  headers: { 'x-api-key': 'header-secret-0123456789', 'x-team': 'blue' },
  entra_id: { tenant_id: 't', client_secret: 'entra-secret-0123456789', authority_host: 'https://login.example.com' },
};

test('credentials are sealed with a nonce each, opened back, and bound to their provider and field', () => {
  const sealed = sealCredentials(provider, KEY, 'provider "p"');
  const text = JSON.stringify(sealed);
  for (const secret of [SECRET, 'second-key-0123456789', 'header-secret-0123456789', 'entra-secret-0123456789'])
    assert.ok(!text.includes(secret), `${secret} is sealed`);
  assert.match(String(sealed.api_key), /^enc:v1:/);
  assert.equal((sealed.headers as Record<string, string>)['x-team'], 'blue', 'a plain header stays');
  assert.equal((sealed.entra_id as Record<string, string>).authority_host, 'https://login.example.com');
  assert.notEqual(sealed.api_key, sealCredentials(provider, KEY, 'provider "p"').api_key, 'a fresh nonce each time');
  assert.deepEqual(openCredentials(sealed, KEY, 'provider "p"'), provider);
  assert.throws(() => openCredentials(sealed, KEY, 'provider "q"'), /cannot be decrypted/, 'bound to its owner');
  assert.throws(() => openCredentials(sealed, randomBytes(32), 'provider "p"'), /stored with another key/);
  assert.throws(() => openCredentials(sealed, null, 'provider "p"'), /MODELGATE_ENCRYPTION_KEY is not set/);
});

test('without a key a credential is refused; a ${VARIABLE} reference is stored as written', () => {
  assert.throws(
    () => sealCredentials(provider, null, 'provider "p"'),
    /api_key is a credential.*MODELGATE_ENCRYPTION_KEY/,
  );
  const ref = { name: 'p', kind: 'openai', api_key: '${OPENAI_API_KEY}' };
  assert.deepEqual(sealCredentials(ref, null, 'provider "p"'), ref);
});

test('replies mask credentials to first 4 + last 4; a masked value sent back keeps the stored one', () => {
  const masked = maskCredentials(provider);
  assert.equal(masked.api_key, 'sk-a…wxyz');
  assert.deepEqual(masked.api_keys, ['seco…6789']);
  const kept = keepMaskedCredentials({ ...masked, base_url: 'https://other.example.com/v1' }, provider);
  assert.equal(kept.api_key, SECRET);
  assert.deepEqual(kept.api_keys, provider.api_keys);
  assert.equal(
    keepMaskedCredentials({ ...masked, api_key: 'sk-new-0123456789' }, provider).api_key,
    'sk-new-0123456789',
  );
});

test('MODELGATE_ENCRYPTION_KEY must be 32 bytes of base64', () => {
  assert.equal(encryptionKey({}), null);
  assert.equal(encryptionKey({ MODELGATE_ENCRYPTION_KEY: KEY.toString('base64') })?.length, 32);
  assert.throws(() => encryptionKey({ MODELGATE_ENCRYPTION_KEY: 'c2hvcnQ=' }), /must be 32 bytes in base64/);
});

const fileDoc = (extra: Record<string, unknown> = {}) => ({
  providers: [{ name: 'mock', kind: 'mock' }],
  models: [{ name: 'm-file', deployments: [{ provider: 'mock', model: 'x' }] }],
  ...extra,
});

test('the merged configuration: the file then the database; errors name a database entry by its name', () => {
  const entries = {
    providers: [{ name: 'mock2', kind: 'mock' }],
    models: [{ name: 'm-db', deployments: [{ provider: 'mock2', model: 'y' }] }],
  };
  const config = mergedConfig({ fileDoc: fileDoc(), source: 'f.yaml', entries });
  assert.deepEqual(
    config.models.map((m) => m.name),
    ['m-file', 'm-db'],
  );
  const bad = { ...entries, models: [{ name: 'm-db', deployments: [{ provider: 'nope', model: 'y' }] }] };
  assert.throws(
    () => mergedConfig({ fileDoc: fileDoc(), source: 'f.yaml', entries: bad }),
    (err: Error) =>
      err instanceof ConfigError &&
      err.message.includes('config error in f.yaml and the database:') &&
      err.message.includes('at models["m-db"].deployments[0].provider: unknown provider "nope" (known: mock, mock2)'),
  );
  const dup = { providers: [], models: [{ name: 'm-file', deployments: [{ provider: 'mock', model: 'z' }] }] };
  assert.throws(
    () => mergedConfig({ fileDoc: fileDoc(), source: 'f.yaml', entries: dup }),
    /duplicate model name "m-file"/,
  );
  const file = mergedConfig({ fileDoc: fileDoc({ models_source: 'file' }), source: 'f.yaml', entries });
  assert.deepEqual(
    file.models.map((m) => m.name),
    ['m-file'],
    'models_source: file ignores the database',
  );
  const db = mergedConfig({
    fileDoc: { models_source: 'database', providers: [{ name: 'ignored', kind: 'mock' }] },
    source: 'f.yaml',
    entries,
  });
  assert.deepEqual([db.providers.map((p) => p.name), db.models.map((m) => m.name)], [['mock2'], ['m-db']]);
  const empty = mergedConfig({
    fileDoc: { models_source: 'database' },
    source: 'f.yaml',
    entries: { providers: [], models: [] },
  });
  assert.equal(empty.models.length, 0, 'an empty database serves no model yet');
  assert.throws(
    () => mergedConfig({ fileDoc: {}, source: 'f.yaml', entries: { providers: [], models: [] } }),
    /at providers: required \(or set models_source: database\)/,
  );
});
