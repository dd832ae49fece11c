// Upgrades an operator can see: each migration step is logged with its versions; `modelgate migrate
// --dry-run` lists what would run and changes nothing, `modelgate migrate` runs it and exits; a database a
// newer build migrated is refused at start, naming both versions (SQLite and PostgreSQL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';
import { dropSchema, freshSchema, pgOrSkip } from '../helpers/postgres.ts';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite-store.ts';
import { PG_MIGRATIONS } from '../../src/store/postgres-store.ts';

const MAIN = new URL('../../src/main.ts', import.meta.url).pathname;
const MODELS = `  - { name: gpt-mock, deployments: [ { provider: mock, model: m } ] }`;

function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, MODELGATE_NO_FIRST_KEY: '1' };
    delete env.MODELGATE_CONFIG;
    execFile(process.execPath, [MAIN, ...args], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), stdout, stderr });
    });
  });
}

function writeConfig(dir: string, database: string): string {
  const path = join(dir, 'config.yaml');
  writeFileSync(path, configYaml({ models: MODELS }).replace('{{DB}}', database));
  return path;
}

/** The JSON log lines of migration steps. */
function migrationLines(logs: string): Array<{ schema: string; from: number; to: number }> {
  return logs
    .split('\n')
    .filter((l) => l.includes('"schema"') && l.includes('migrated the database'))
    .map((l) => JSON.parse(l) as { schema: string; from: number; to: number });
}

test('SQLite: migrate --dry-run lists and changes nothing, migrate runs and exits, a start logs each step once, a newer database is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-migrate-'));
  try {
    const db = join(dir, 'gateway.db');
    const config = writeConfig(dir, db);
    const latest = SQLITE_MIGRATIONS.steps.length;
    const dry = await cli(['migrate', '--dry-run', '--config', config], dir);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`keys and usage: at version 0, ${latest} pending \\(to version ${latest}\\)`));
    assert.match(dry.stdout, /0 → 1: CREATE TABLE keys/);
    assert.match(dry.stdout, /nothing was changed/);
    assert.ok(!existsSync(db), 'a dry run creates no database');

    const ran = await cli(['migrate', '--config', config], dir);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, new RegExp(`migrated keys and usage: version ${latest - 1} → ${latest}`));
    assert.match(ran.stdout, /migrated stored responses: version 0 → 1/);
    const again = await cli(['migrate', '--dry-run', '--config', config], dir);
    assert.match(again.stdout, /nothing to migrate/);

    // A start on the migrated database migrates nothing and logs no step.
    const gw = await startGateway({ configYaml: configYaml({ models: MODELS }).replace('{{DB}}', db) });
    await gw.cleanup();
    assert.deepEqual(migrationLines(gw.logs()), []);

    // An older build on a database a newer one migrated: refused, naming both versions, at start and by the CLI.
    const sqlite = new DatabaseSync(db);
    sqlite.exec('UPDATE schema_version SET v = 42');
    sqlite.close();
    await assert.rejects(
      startGateway({ configYaml: configYaml({ models: MODELS }).replace('{{DB}}', db) }),
      new RegExp(`keys and usage schema is at version 42, but this build of modelgate knows versions up to ${latest}`),
    );
    const refused = await cli(['migrate', '--dry-run', '--config', config], dir);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /version 42, but this build of modelgate knows versions up to/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite: a first start logs one info line per migration step with its versions', async () => {
  const gw = await startGateway({ configYaml: configYaml({ models: MODELS }) });
  try {
    const lines = migrationLines(gw.logs());
    const keys = lines.filter((l) => l.schema === 'keys and usage');
    assert.equal(keys.length, SQLITE_MIGRATIONS.steps.length);
    keys.forEach((l, i) => assert.deepEqual([l.from, l.to], [i, i + 1]));
    assert.ok(lines.some((l) => l.schema === 'stored responses' && l.from === 0 && l.to === 1));
  } finally {
    await gw.cleanup();
  }
});

test('PostgreSQL: migrate --dry-run, migrate, logged steps at start, and a newer database refused', async (t) => {
  const sql = await pgOrSkip(t);
  if (sql === null) return;
  const { schema, url } = freshSchema('mg_migrate');
  const dir = mkdtempSync(join(tmpdir(), 'mg-migrate-pg-'));
  try {
    const config = writeConfig(dir, url);
    const latest = PG_MIGRATIONS.steps.length;
    const dry = await cli(['migrate', '--dry-run', '--config', config], dir);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`keys and usage: at version 0, ${latest} pending`));
    const [exists] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = ${schema}`;
    assert.equal(exists.n, 0, 'a dry run creates nothing');

    // Half-way: the first steps only, as an older build left it; a start runs and logs the rest.
    await sql.unsafe(`CREATE SCHEMA "${schema}"`);
    await sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL search_path TO "${schema}"`);
      for (const step of PG_MIGRATIONS.steps.slice(0, latest - 2)) await tx.unsafe(step);
      await tx.unsafe('CREATE TABLE schema_version (v INTEGER NOT NULL)');
      await tx.unsafe(`INSERT INTO schema_version (v) VALUES (${latest - 2})`);
    });
    const half = await cli(['migrate', '--dry-run', '--config', config], dir);
    assert.match(half.stdout, new RegExp(`keys and usage: at version ${latest - 2}, 2 pending`));

    const gw = await startGateway({ configYaml: configYaml({ models: MODELS }).replace('{{DB}}', url) });
    await gw.cleanup();
    const keys = migrationLines(gw.logs()).filter((l) => l.schema === 'keys and usage');
    assert.deepEqual(
      keys.map((l) => [l.from, l.to]),
      [
        [latest - 2, latest - 1],
        [latest - 1, latest],
      ],
    );
    const ran = await cli(['migrate', '--config', config], dir);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /up to date, nothing to migrate/);

    await sql.unsafe(`UPDATE "${schema}".schema_version SET v = 42`);
    await assert.rejects(
      startGateway({ configYaml: configYaml({ models: MODELS }).replace('{{DB}}', url) }),
      new RegExp(`keys and usage schema is at version 42, but this build of modelgate knows versions up to ${latest}`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(sql, schema);
    await sql.end();
  }
});
