// The usage writer thread loads JavaScript only: a thread that loads one TypeScript module starts Node's
// type stripper in its own isolate, ≈ 15 MB of resident memory for nothing (usage-thread-worker.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKER = new URL('../../src/store/usage-thread-worker.js', import.meta.url);

/** Relative modules a file imports at run time: import statements outside comments (JSDoc @import is types only). */
function runtimeImports(url: URL): URL[] {
  const code = readFileSync(url, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const out: URL[] = [];
  for (const m of code.matchAll(/^\s*import\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gm)) out.push(new URL(m[1], url));
  for (const m of code.matchAll(/^\s*import\s+'(\.[^']+)'/gm)) out.push(new URL(m[1], url));
  return out;
}

test('the writer thread and every module it loads are JavaScript', () => {
  const seen = new Set<string>();
  const queue = [WORKER];
  while (queue.length > 0) {
    const url = queue.pop() as URL;
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    assert.match(url.pathname, /\.js$/, `${fileURLToPath(url)} is loaded by the usage writer thread`);
    queue.push(...runtimeImports(url));
  }
  // The worker itself, usage-sql.js and sqlite-pragmas.js: the walk found the imports.
  assert.ok(seen.size >= 3, `walked ${[...seen].join(', ')}`);
});
