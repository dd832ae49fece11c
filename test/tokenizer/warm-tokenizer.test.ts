// The tables can be loaded ahead of the first count (the server does so once it listens), and a count
// afterwards is the same as one that loads them itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const moduleUrl = JSON.stringify(new URL('../../src/tokenizer/count-tokens.ts', import.meta.url).href);

function run(script: string): unknown {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test('warmTokenizer loads the tables before any count; counts then match a cold start', () => {
  const text = 'Tokenizers split text into pieces: 東京タワー, émigré, 12345 and <|endoftext|>.';
  const warm = run(`
    const t = await import(${moduleUrl});
    const before = t.tokenizerLoaded();
    const warming = t.warmTokenizer();
    await warming;
    const loaded = t.tokenizerLoaded();
    await t.warmTokenizer();
    console.log(JSON.stringify([before, loaded, t.countTokens(${JSON.stringify(text)})]));
  `);
  const cold = run(
    `const t = await import(${moduleUrl}); console.log(JSON.stringify([t.countTokens(${JSON.stringify(text)})]));`,
  );
  assert.deepEqual(warm, [false, true, (cold as number[])[0]]);
  assert.ok((cold as number[])[0] > 10);
});
