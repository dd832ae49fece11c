// The tokenizer pass: one real run of each implementation in fresh processes, and the table.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTokenizerPass, tokenizerCorpus } from '../lib/tokenizer-pass.ts';
import type { TokenizerRep, TokenizerRun } from '../lib/tokenizer-pass.ts';
import { tokenizerTable } from '../lib/tokenizer-report.ts';

function rep(impl: TokenizerRep['impl'], tokens: number): TokenizerRep {
  return { impl, firstUseMs: impl === 'modelgate' ? 50 : 300, rssMb: impl === 'modelgate' ? 11 : 66, heapMb: 0.1, chars: 52_000, tokens, countMs: 10 };
}

describe('tokenizer pass', () => {
  it('runs both tokenizers in fresh processes, alternated, and they count the corpus alike', async () => {
    const run = await runTokenizerPass({ reps: 2 });
    assert.deepEqual(run.reps.map((r) => r.impl), ['modelgate', 'gpt-tokenizer', 'gpt-tokenizer', 'modelgate']);
    const corpus = tokenizerCorpus();
    for (const r of run.reps) {
      assert.equal(r.chars, corpus.length);
      assert.ok(r.tokens > corpus.length / 8 && r.tokens < corpus.length, `${r.tokens} tokens for ${corpus.length} characters`);
      assert.ok(r.firstUseMs > 0 && r.countMs > 0);
    }
    assert.equal(new Set(run.reps.map((r) => r.tokens)).size, 1);
  });

  it('the table shows medians per tokenizer and says whether they agreed', () => {
    const run: TokenizerRun = { corpus: 'c', reps: [rep('modelgate', 100), rep('gpt-tokenizer', 100), rep('gpt-tokenizer', 100), rep('modelgate', 100)] };
    const table = tokenizerTable(run).join('\n');
    assert.match(table, /\| modelgate \| 2 \| 50 \| 11\.0 \| 0\.1 \| 10 \| 5\.20 \| 100 \|/);
    assert.match(table, /\| gpt-tokenizer \| 2 \| 300 \| 66\.0 \|/);
    assert.match(table, /Both counted the same number of tokens/);
    const split = tokenizerTable({ corpus: 'c', reps: [rep('modelgate', 100), rep('gpt-tokenizer', 101)] }).join('\n');
    assert.match(split, /disagree/);
    assert.deepEqual(tokenizerTable(null), []);
  });
});
