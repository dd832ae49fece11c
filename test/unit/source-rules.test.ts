// Rules of the source tree that no single feature's test would notice: no source file reaches into
// node:http's internals, and comments state contracts rather than history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
}

test('no source file reads node:http internals', () => {
  const internal = /\.(_[a-zA-Z]\w*|chunkedEncoding|writableCorked)\b/;
  const found = sourceFiles(SRC).flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ f, line, i }))
      .filter(
        ({ line }) => !line.trimStart().startsWith('//') && !line.trimStart().startsWith('*') && internal.test(line),
      )
      .map(({ f, i }) => `${relative(SRC, f)}:${i + 1}`),
  );
  assert.deepEqual(found, []);
});

test('no comment in src/ cites a benchmark round or its history', () => {
  const cites = /bench\/HISTORY|HISTORY\.md|\b\d+(st|nd|rd|th) round\b|\bround \d+\b/i;
  const found = sourceFiles(SRC).flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ f, line, i }))
      .filter(({ line }) => cites.test(line))
      .map(({ f, i }) => `${relative(SRC, f)}:${i + 1}`),
  );
  assert.deepEqual(found, []);
});

test('no comment in src/ cites an issue number: comments state the contract, git keeps the history', () => {
  const cites = /\b[Ii]ssues? #?\d+\b/;
  const found = sourceFiles(SRC).flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ f, line, i }))
      .filter(({ line }) => cites.test(line))
      .map(({ f, i }) => `${relative(SRC, f)}:${i + 1}`),
  );
  assert.deepEqual(found, []);
});
