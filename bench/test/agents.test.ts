// The agent bench: its mock's prompt cache is per deployment and follows the providers' rules, and a tiny
// run (a few turns) through the bare proxy and modelgate reports every figure, with modelgate's session
// affinity keeping at least 95 % of the cacheable prompt read from cache over two deployments.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PrefixCaches, type PromptBlock } from '../agents/prefix-cache.ts';
import { runAgentBench } from '../agents/run.ts';

const block = (text: string, breakpoint = false): PromptBlock => ({ text: text.repeat(400), breakpoint });

describe('agent mock prompt cache', () => {
  it('reads a prefix back on the deployment that cached it, not on another', () => {
    const caches = new PrefixCaches();
    const first = [block('tools '), block('system ', true), block('turn one ', true)];
    const second = [...first, block('turn two ', true)];
    assert.equal(caches.read('a', 'anthropic', first).read, 0);
    const same = caches.read('a', 'anthropic', second);
    assert.ok(same.read > 0 && same.read === same.cacheable, JSON.stringify(same));
    const other = caches.read('b', 'anthropic', [...second, block('turn three ', true)]);
    assert.equal(other.read, 0);
    assert.ok(other.cacheable > 0);
  });

  it('caches Anthropic prompts only at breakpoints, OpenAI ones at every boundary in steps of 128', () => {
    const caches = new PrefixCaches();
    const blocks = [block('tools '), block('system ')];
    caches.read('a', 'anthropic', blocks);
    assert.equal(caches.read('a', 'anthropic', [...blocks, block('more ', true)]).read, 0);
    caches.read('o', 'openai', blocks);
    const openai = caches.read('o', 'openai', [...blocks, block('more ')]);
    assert.ok(openai.read > 0 && openai.read % 128 === 0, JSON.stringify(openai));
  });
});

describe('npm run bench:agents, tiny', () => {
  it('reports time to first token, CPU, cache and head-of-line for each target', async () => {
    const workDir = mkdtempSync(join(os.tmpdir(), 'agents-test-'));
    try {
      const report = await runAgentBench({
        turns: 4,
        sessions: 1,
        reps: 1,
        maxContextTokens: 12_000,
        preambleBytes: 8192,
        smallRequests: 10,
        targets: new Set(['bare-proxy', 'modelgate']),
        installPeers: false,
        workDir,
        log: () => {},
      });
      assert.deepEqual(report.skipped, [], report.skipped.join('\n'));
      for (const agent of ['claude-code', 'codex'] as const) {
        for (const target of ['bare-proxy', 'modelgate', 'modelgate-no-session'] as const) {
          const row = report.sessions.find((r) => r.agent === agent && r.target === target);
          assert.ok(row !== undefined, `${agent} on ${target} is reported`);
          assert.deepEqual(row.errors, []);
          assert.equal(row.turns, 4);
          assert.ok(row.maxContextTokens > 8000, `${row.maxContextTokens} tokens at the end`);
          for (const figure of [
            row.ttftP50Us,
            row.ttftP99Us,
            row.cpuUsPerSession,
            row.cpuUsPerTurn,
            row.promptFromCache,
          ])
            assert.ok(Number.isFinite(figure), JSON.stringify(row));
          assert.ok(row.cacheable > 0 && row.cacheRatio !== null);
          if (target === 'bare-proxy') assert.equal(row.addedTtftP50Us, 0);
          else assert.ok(Number.isFinite(row.addedTtftP50Us));
        }
        const affinity = report.sessions.find((r) => r.agent === agent && r.target === 'modelgate');
        assert.ok((affinity?.cacheRatio ?? 0) >= 0.95, `${agent}: ${JSON.stringify(affinity)}`);
      }
      for (const target of ['bare-proxy', 'modelgate'] as const) {
        const row = report.headOfLine.find((r) => r.target === target);
        assert.ok(row !== undefined, `head-of-line on ${target} is reported`);
        assert.equal(row.alone.count, 10);
        assert.equal(row.withBig.count, 10);
        assert.ok(Number.isFinite(row.alone.p99Us) && Number.isFinite(row.withBig.p99Us));
        // The small requests start once the first big one is written; it may still be in the proxy at the end.
        assert.ok(row.bigBytes > 40_000, JSON.stringify(row));
        assert.equal(row.errors, 0);
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
