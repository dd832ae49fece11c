// The import direction of src/, layer by layer: a file imports only from its own top-level folder or
// from a layer below it, so the folders form no cycle (type-only imports count: they couple the code as
// much as value imports do). Measured by dependency-cruiser over every .ts and .js file of src/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The layers, lowest first. Each entry is a top-level folder (or file, without its extension) of src/;
 * entries that share an array are one layer and may import each other only if neither imports back.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['runtime'],
  ['spec'],
  ['observability'],
  ['store'],
  ['dialects'],
  ['providers'],
  ['registry'],
  ['pricing'],
  ['upstream'],
  ['tokenizer'],
  ['catalog'],
  ['http'],
  ['auth'],
  ['admission'],
  ['conversation'],
  ['translate'],
  ['routing'],
  ['counting'],
  ['accounting'],
  ['stages'],
  ['mcp'],
  ['config'],
  ['pipeline'],
  ['reconcile'],
  ['admin'],
  ['main'],
];

interface Edge {
  from: string;
  to: string;
  file: string;
  target: string;
}

/** The top-level entry of src/ a path belongs to (`src/http/body.ts` → `http`, `src/registry.ts` → `registry`). */
function unitOf(path: string, src: string): string | null {
  if (!path.startsWith(`${src}/`)) return null;
  const rest = path.slice(src.length + 1);
  const slash = rest.indexOf('/');
  return slash === -1 ? rest.replace(/\.(ts|js)$/, '') : rest.slice(0, slash);
}

/** Every import that crosses from one top-level entry of `srcDir` to another. */
export async function crossingImports(srcDir: string): Promise<Edge[]> {
  const result = await cruise([srcDir], {
    tsPreCompilationDeps: true,
    exclude: { path: '\\.test\\.ts$' },
    doNotFollow: { path: 'node_modules' },
  });
  const src = srcDir.replace(/\/$/, '');
  const output = result.output as { modules: { source: string; dependencies: { resolved: string }[] }[] };
  const edges: Edge[] = [];
  for (const m of output.modules) {
    const from = unitOf(m.source, src);
    if (from === null) continue;
    for (const d of m.dependencies) {
      const to = unitOf(d.resolved, src);
      if (to !== null && to !== from) edges.push({ from, to, file: m.source, target: d.resolved });
    }
  }
  return edges;
}

/** The imports that go upward (or sideways within a layer) by LAYERS, and entries LAYERS does not place. */
export function upwardImports(edges: Edge[], layers: readonly (readonly string[])[] = LAYERS): string[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => {
    for (const unit of layer) rank.set(unit, i);
  });
  const found: string[] = [];
  for (const e of edges) {
    const a = rank.get(e.from);
    const b = rank.get(e.to);
    if (a === undefined || b === undefined) found.push(`${e.file}: ${a === undefined ? e.from : e.to} has no layer`);
    else if (b >= a) found.push(`${e.file} → ${e.target} (${e.from} may not import ${e.to})`);
  }
  return [...new Set(found)].sort();
}

test('every import in src/ goes down the layers', async () => {
  const upward = upwardImports(await crossingImports('src'));
  assert.deepEqual(upward, [], `imports against the layer order:\n${upward.join('\n')}`);
});

test('an upward import is found (the check can fail)', async () => {
  const dir = mkdtempSync(join(ROOT, '.tmp-layers-'));
  try {
    mkdirSync(join(dir, 'core'));
    mkdirSync(join(dir, 'http'));
    writeFileSync(join(dir, 'http', 'server.ts'), 'export const port = 1;\n');
    writeFileSync(
      join(dir, 'core', 'types.ts'),
      "import type { port } from '../http/server.ts';\nexport type P = typeof port;\n",
    );
    const rel = dir.slice(ROOT.length + 1);
    const upward = upwardImports(await crossingImports(rel));
    assert.equal(upward.length, 1, upward.join('\n'));
    assert.match(upward[0]!, /core may not import http/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("no file outside a provider's own folder tests a provider's kind", async () => {
  const { PROVIDERS } = await import('../../src/registry.ts');
  const kinds = PROVIDERS.map((spec) => spec.kind).join('|');
  // `deployment.provider.kind !== …`, `p.kind === 'gemini'`, `'mock' === p.kind`, `switch (provider.kind)`.
  const test = new RegExp(
    [
      String.raw`\bprovider\.kind\s*[!=]==?`,
      String.raw`[!=]==?\s*(\w+\.)*provider\.kind\b`,
      String.raw`\bp\.kind\s*[!=]==?\s*'(${kinds})'`,
      String.raw`'(${kinds})'\s*[!=]==?\s*p\.kind\b`,
      String.raw`switch\s*\(\s*(\w+\.)*(provider|p)\.kind\s*\)`,
    ].join('|'),
  );
  const found: string[] = [];
  for (const file of readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
    if (!/\.(ts|js)$/.test(file) || /^providers\/[^/]+\//.test(file)) continue;
    readFileSync(join(ROOT, 'src', file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (test.test(line)) found.push(`src/${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
});
