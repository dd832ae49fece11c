// The README's client recipes as a newcomer runs them, against the built-in mock config: Gemini CLI with the
// settings file and environment the README gives, and Claude Code with no --model, its tool calls run with
// the mock's schema-valid arguments.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { BUILTIN_CONFIG_YAML } from '../../src/config/builtin.ts';
import { claudeOrSkip, runClaude } from '../helpers/claude-code.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const GEMINI = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

let gw: GatewayProcess;
let key: string;
before(async () => {
  gw = await startGateway({
    configYaml: `${BUILTIN_CONFIG_YAML.replace('./data/modelgate.db', '"{{DB}}"')}usage_flush_ms: 20\n`,
  });
  ({ key } = await gw.createKey({ name: 'newcomer' }));
});
after(async () => {
  await gw.cleanup();
});

/** The README's Gemini CLI row: its settings JSON and its command's environment. */
function geminiRecipe(): { settings: string; env: Record<string, string>; args: string[] } {
  const row = README.split('\n').find((l) => l.startsWith('| Gemini CLI |'));
  assert.ok(row, 'the README has a Gemini CLI row');
  const settings = /echo '(\{.*?\})' > ~\/\.gemini\/settings\.json/.exec(row)?.[1];
  const command = /then `([^`]+)`/.exec(row)?.[1];
  assert.ok(settings && command, row);
  const env: Record<string, string> = {};
  const words = command.split(' ');
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = words.shift()!.split('=');
    env[name] = value;
  }
  assert.equal(words.shift(), 'gemini');
  const args = command
    .slice(command.indexOf('gemini ') + 7)
    .match(/'[^']*'|\S+/g)!
    .map((a) => a.replace(/^'|'$/g, ''));
  return { settings, env, args };
}

test("the README's Gemini CLI recipe, as written, answers", { timeout: 180_000 }, async () => {
  const recipe = geminiRecipe();
  assert.equal(recipe.env.GOOGLE_GEMINI_BASE_URL, 'http://127.0.0.1:8080', 'the default port');
  const home = mkdtempSync(join(tmpdir(), 'modelgate-recipe-'));
  try {
    mkdirSync(join(home, '.gemini'));
    mkdirSync(join(home, 'work'));
    writeFileSync(join(home, '.gemini', 'settings.json'), recipe.settings);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...recipe.env };
    env.GOOGLE_GEMINI_BASE_URL = gw.url;
    env.GEMINI_API_KEY = key;
    const run = await new Promise<{ code: number; out: string }>((done) =>
      execFile(
        process.execPath,
        [GEMINI, ...recipe.args],
        { cwd: join(home, 'work'), env, timeout: 150_000 },
        (e, o, s) => done({ code: e === null ? 0 : 1, out: o + s }),
      ),
    );
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /deterministic reply from the modelgate mock/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("the README's Claude Code recipe (no --model): the mock's tool call runs and the session ends", {
  timeout: 240_000,
}, async (t) => {
  if (!(await claudeOrSkip(t))) return;
  const run = await runClaude({ gateway: { url: gw.url, key }, prompt: 'Hello', allowedTools: 'Bash' });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /deterministic reply from the modelgate mock/);
  assert.doesNotMatch(run.stdout + run.stderr, /InputValidationError|invalid_type/);
});

/** A README client row's command: its environment (the key and the gateway's URL put in) and its arguments. */
function claudeCloudRecipe(rowName: string): { env: Record<string, string>; model: string } {
  const row = README.split('\n').find((l) => l.startsWith(`| ${rowName} |`));
  assert.ok(row, `the README has a ${rowName} row`);
  const command = /`([^`]+)`/.exec(row)?.[1];
  assert.ok(command, row);
  const words = command.match(/[A-Z_]+="[^"]*"|\S+/g)!;
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const word = words.shift()!;
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word
      .slice(eq + 1)
      .replace(/^"|"$/g, '')
      .replace('$KEY', key)
      .replace('http://127.0.0.1:8080', gw.url);
  }
  assert.equal(words.shift(), 'claude');
  assert.equal(words.shift(), '--model');
  return { env, model: words.shift()! };
}

for (const row of ['Claude Code on Bedrock', 'Claude Code on Vertex AI']) {
  test(`the README's ${row} recipe answers`, { timeout: 240_000 }, async (t) => {
    if (!(await claudeOrSkip(t))) return;
    const recipe = claudeCloudRecipe(row);
    const run = await runClaude({
      gateway: { url: gw.url, key },
      cloud: recipe.env,
      model: recipe.model,
      prompt: 'Hello',
      allowedTools: 'Bash',
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /deterministic reply from the modelgate mock/);
  });
}
