// The command line an operator meets: a mistyped command or a wrong directory says so instead of
// quietly creating an empty database, and key management does not need the upstreams' credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = new URL('../../src/main.ts', import.meta.url).pathname;

function cli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env, ...env };
    delete clean.MODELGATE_CONFIG;
    execFile(process.execPath, [MAIN, ...args], { cwd, env: clean }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), stdout, stderr });
    });
  });
}

test('a mistyped command or a directory without the database creates nothing and says where it looked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  try {
    const typo = await cli(['kyes', 'list'], dir);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown command "kyes"/);
    const list = await cli(['keys', 'list'], dir);
    assert.equal(list.code, 1);
    assert.match(list.stderr, /no database at .*modelgate\.db/);
    const usage = await cli(['usage'], dir);
    assert.equal(usage.code, 1);
    assert.ok(!existsSync(join(dir, 'data')), 'no empty database left behind');
    // `keys create` is how a first key is made before the first start: it may create the database.
    const created = await cli(['keys', 'create', '--name', 'first', '--team', 'platform', '--json'], dir);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { team: string | null }).team, 'platform', '--team names its team');
    assert.equal((await cli(['keys', 'list'], dir)).code, 0);
    // Flags that cannot mean anything are said to be wrong, not answered with an empty report.
    const days = await cli(['usage', '--days', 'abc'], dir);
    assert.equal(days.code, 2);
    assert.match(days.stderr, /--days must be a number/);
    const nobody = await cli(['usage', '--key', 'nobody'], dir);
    assert.equal(nobody.code, 2);
    assert.match(nobody.stderr, /no key with id or name "nobody"/);
    assert.equal((await cli(['usage', '--key', 'first', '--days', '7'], dir)).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('keys and usage run with the upstream credentials unset in the shell; serve still requires them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  try {
    const config = join(dir, 'gw.yaml');
    writeFileSync(
      config,
      `database: ${join(dir, 'gw.db')}
providers:
  - { name: openai, kind: openai, base_url: "https://api.openai.com/v1", api_key: "\${MG_TEST_UNSET_API_KEY}" }
models:
  - { name: gpt-4o-mini, deployments: [ { provider: openai, model: gpt-4o-mini } ] }
`,
    );
    const created = await cli(['keys', 'create', '--name', 'ops', '--config', config], dir);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await cli(['usage', '--config', config], dir)).code, 0);
    const serve = await cli(['serve', '--config', config, '--port', '0'], dir);
    assert.equal(serve.code, 2);
    assert.match(serve.stderr, /MG_TEST_UNSET_API_KEY is not set/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unknown MODELGATE_LOG_LEVEL logs at info and says so, instead of stopping the gateway', async () => {
  const { createLogger } = await import('../../src/observability/logger.ts');
  const logger = createLogger({ level: 'verbose' });
  assert.equal(logger.level, 'info');
  assert.equal(createLogger({ level: 'DEBUG' }).level, 'debug');
});

test('a key created already expired is refused at creation, and nothing is stored', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  try {
    const past = await cli(['keys', 'create', '--name', 'late', '--expires', '2020-01-01', '--json'], dir);
    assert.equal(past.code, 2, past.stdout);
    assert.match(past.stderr, /expiry 2020-01-01T00:00:00.000Z is already past/);
    assert.equal(past.stdout, '', 'no key printed');
    const ok = await cli(['keys', 'create', '--name', 'soon', '--expires', '2999-01-01', '--json'], dir);
    assert.equal(ok.code, 0, ok.stderr);
    const list = JSON.parse((await cli(['keys', 'list', '--json'], dir)).stdout) as { name: string }[];
    assert.deepEqual(
      list.map((k) => k.name),
      ['soon'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the SQLite file and its directory are created readable by the owner only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  try {
    const created = await cli(['keys', 'create', '--name', 'first', '--team', 'platform', '--json'], dir);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { team: string | null }).team, 'platform', '--team names its team');
    const { statSync, readdirSync } = await import('node:fs');
    const data = join(dir, 'data');
    assert.equal(statSync(data).mode & 0o777, 0o700, 'the directory the gateway made');
    for (const name of readdirSync(data))
      assert.equal(statSync(join(data, name)).mode & 0o077, 0, `${name} is not readable by group or others`);
    assert.ok(readdirSync(data).some((n) => n.endsWith('.db')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
