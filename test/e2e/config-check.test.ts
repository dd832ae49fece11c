// Mistakes caught before they cost: `modelgate config check` runs the start's checks and looks for the
// usual traps, `--version` prints the package's version, an older Node gets a sentence instead of a
// stack, and an upstream 404 for a path says the base URL is the likely cause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startGateway, configYaml, waitUntil } from '../helpers/gateway-process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const MAIN = join(ROOT, 'src/main.ts');

function run(
  node: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete clean.MODELGATE_CONFIG;
    execFile(node, args, { cwd, env: clean }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), stdout, stderr });
    });
  });
}
const cli = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) => run(process.execPath, [MAIN, ...args], cwd, env);

const GOOD = `database: ./gateway.db
providers:
  - { name: openai, kind: openai, base_url: https://api.openai.com/v1, api_key: "\${MG_CHECK_KEY}" }
  - { name: anthropic, kind: anthropic, base_url: https://api.anthropic.com, api_key: "\${MG_CHECK_KEY}" }
models:
  - { name: gpt-4o-mini, price: { input: 0.15, output: 0.6 }, deployments: [ { provider: openai, model: gpt-4o-mini } ] }
  - { name: claude, price: { input: 3, output: 15 }, deployments: [ { provider: anthropic, model: claude-sonnet-4-5 } ] }
`;

test('--version prints package.json version', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const r = await cli(['--version'], tmpdir());
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), pkg.version);
});

test('config check: a sound file is OK (exit 0) and touches no database; the start checks run too (a missing variable, exit 2)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-check-'));
  try {
    writeFileSync(join(dir, 'c.yaml'), GOOD);
    const ok = await cli(['config', 'check', '--config', 'c.yaml'], dir, { MG_CHECK_KEY: 'sk-x' });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /c\.yaml: OK \(2 provider\(s\), 2 model\(s\)\)/);
    assert.deepEqual(
      execFileSync('ls', [dir], { encoding: 'utf8' }).trim().split('\n'),
      ['c.yaml'],
      'no database is made',
    );
    const unset = await cli(['config', 'check', '--config', 'c.yaml'], dir, { MG_CHECK_KEY: '' });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /environment variable MG_CHECK_KEY is not set/);
    const invalid = await cli(['config', 'check', '--config', 'c.yaml'], dir, { MG_CHECK_KEY: 'k' });
    assert.equal(invalid.code, 0);
    writeFileSync(join(dir, 'bad.yaml'), GOOD.replace('kind: openai', 'kind: opanai'));
    const bad = await cli(['config', 'check', '--config', 'bad.yaml'], dir, { MG_CHECK_KEY: 'k' });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /at providers\[0\]\.kind/);
    const typo = await cli(['config', 'chek'], dir);
    assert.equal(typo.code, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('config check: the traps — OpenAI URL without /v1, Anthropic URL with it, a per-token price, a model no deployment serves, an unused provider', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-check-'));
  try {
    const traps = `database: ./gateway.db
providers:
  - { name: openai, kind: openai, base_url: https://api.openai.com, api_key: k }
  - { name: anthropic, kind: anthropic, base_url: https://api.anthropic.com/v1, api_key: k }
  - { name: spare, kind: openai, base_url: https://example.com/v1, api_key: k }
models:
  - { name: gpt, price: { input: 0.0000025, output: 10 }, deployments: [ { provider: openai, model: gpt-4o } ] }
  - { name: claude, deployments: [ { provider: anthropic, model: claude-sonnet-4-5 } ] }
  - { name: embed, mode: embedding, deployments: [ { provider: anthropic, model: text-embedding-3-small } ] }
`;
    writeFileSync(join(dir, 'c.yaml'), traps);
    const r = await cli(['config', 'check', '--config', 'c.yaml'], dir);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.trim().split('\n');
    const has = (re: RegExp): void =>
      assert.ok(
        lines.some((l) => re.test(l)),
        `${re} in:\n${r.stdout}`,
      );
    has(/^warning: at providers\[0\]\.base_url: https:\/\/api\.openai\.com has no \/v1/);
    has(/^error: at providers\[1\]\.base_url: https:\/\/api\.anthropic\.com\/v1 ends in a version path/);
    has(/^warning: at providers\[2\]: provider "spare" is used by no model's deployments/);
    has(/^error: at models\[0\]\.price\.input: 0\.0000025 USD looks like a price per token.*2\.5 per million/);
    has(/^error: at models\[2\]\.deployments: no deployment of "embed" serves embeddings/);
    assert.match(lines.at(-1)!, /c\.yaml: 3 error\(s\), 2 warning\(s\)/);
    assert.ok(!lines.some((l) => l.includes('models[0].price.output')), 'a price per million is not flagged');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A Node older than 24 on this machine (the system's), or null. */
function olderNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    try {
      const v = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(/^v(\d+)/.exec(v)?.[1]) < 24) return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

test('bin/modelgate.js under Node < 24: a plain message and exit 1, not ERR_UNKNOWN_FILE_EXTENSION', async (t) => {
  const old = olderNode();
  if (old === null) {
    t.skip('no Node older than 24 on this machine');
    return;
  }
  const r = await run(old, [join(ROOT, 'bin/modelgate.js'), '--version'], tmpdir());
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^modelgate needs Node\.js 24 or newer; this is Node\.js v\d+/);
  assert.doesNotMatch(r.stderr, /ERR_UNKNOWN_FILE_EXTENSION|at /);
  // Under Node 24 the same file runs the command.
  const ok = await run(process.execPath, [join(ROOT, 'bin/modelgate.js'), '--version'], tmpdir());
  assert.equal(ok.code, 0, ok.stderr);
});

test('an upstream that answers 404 for the path: the caller and the log hear that the base URL is the likely cause', async () => {
  // What OpenAI answers for a path it does not have (a base_url without /v1 sends /chat/completions).
  const upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          message: `Invalid URL (${req.method} ${req.url})`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      }),
    );
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const { port } = upstream.address() as AddressInfo;
  const gw = await startGateway({
    configYaml: configYaml({
      providers: `  - { name: up, kind: openai, base_url: "http://127.0.0.1:${port}", api_key: "sk-upstream-404-0123456789" }`,
      models: `  - { name: gpt-up, deployments: [ { provider: up, model: gpt-4o } ] }`,
    }),
  });
  try {
    const { key } = await gw.createKey({ name: 'k' });
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(r.status, 502);
    const body = (await r.json()) as { error: { message: string } };
    assert.match(body.error.message, /Invalid URL \(POST \/chat\/completions\).*base_url is the likely cause/);
    // The log line is written as the answer goes out; it reaches this process's pipe a moment later.
    const hint = /"hint":"the upstream has no such path: the provider's base_url is the likely cause/;
    await waitUntil(async () => hint.test(gw.logs()), 'the base-URL hint in the log');
    // The start said so too.
    assert.match(gw.logs(), /config warning: http:\/\/127\.0\.0\.1:\d+ has no \/v1/);
  } finally {
    await gw.cleanup();
    upstream.close();
  }
});

test('config check sees the providers and models the database holds: one the file no longer fits is an error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-check-db-'));
  try {
    const file = join(dir, 'modelgate.yaml');
    const withProvider = `database: ./gateway.db
providers:
  - { name: extra, kind: openai, base_url: https://api.openai.com/v1, api_key: "\${MG_CHECK_KEY}" }
models:
  - { name: gpt-file, price: { input: 0.15, output: 0.6 }, deployments: [ { provider: extra, model: gpt-4o-mini } ] }
`;
    writeFileSync(file, withProvider);
    const env = { MG_CHECK_KEY: 'sk-check-0123456789abcdef' };
    const migrated = await cli(['migrate', '--config', file], dir, env);
    assert.equal(migrated.code, 0, migrated.stderr);
    const added = await cli(
      [
        'models',
        'add',
        '{ name: gpt-db, price: { input: 1, output: 2 }, deployments: [ { provider: extra, model: m } ] }',
        '--config',
        file,
      ],
      dir,
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const ok = await cli(['config', 'check', '--config', file], dir, env);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /2 model\(s\)/, 'the database model is counted');
    // The file drops the provider the database's model uses: a start would refuse that, and so does the check.
    writeFileSync(
      file,
      'database: ./gateway.db\nproviders:\n  - { name: other, kind: mock }\nmodels:\n  - { name: gpt-file, deployments: [ { provider: other, model: m } ] }\n',
    );
    const bad = await cli(['config', 'check', '--config', file], dir, env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout + bad.stderr, /models\["gpt-db"\]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
