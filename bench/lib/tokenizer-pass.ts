// The tokenizer pass: modelgate's o200k tokenizer beside gpt-tokenizer (the library it replaced, same
// vocabulary), each in fresh processes alternated, so the first-use stall and the memory a gateway keeps
// once a prompt has been counted are measured, not remembered. Both must count the corpus alike.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, NODE } from './processes.ts';

export interface TokenizerRep {
  impl: 'modelgate' | 'gpt-tokenizer';
  /** Import, table build and a first short count, ms. */
  firstUseMs: number;
  /** RSS kept after a full GC, MB (after minus before the first use). */
  rssMb: number;
  /** JS heap kept after a full GC, MB. */
  heapMb: number;
  chars: number;
  tokens: number;
  /** One count of the whole corpus, median of five after the first use, ms. */
  countMs: number;
}

export interface TokenizerRun {
  corpus: string;
  reps: TokenizerRep[];
}

const WORKER = join(new URL('..', import.meta.url).pathname, 'tokenizer-worker.ts');
const ROOT = new URL('../..', import.meta.url);
const IMPLS: ReadonlyArray<TokenizerRep['impl']> = ['modelgate', 'gpt-tokenizer'];

/**
 * The corpus: the project's own README and docs (English prose, code, tables) and a seeded mix of
 * scripts and emoji, so both Latin and multi-byte text take part. Fixed for a commit.
 */
export function tokenizerCorpus(): string {
  const docs = ['README.md', 'docs/budgets.md', 'docs/translation.md'].map((f) => readFileSync(new URL(f, ROOT), 'utf8')).join('\n\n');
  const scripts = ['你好，世界！这是一个测试。', 'Привет, мир! Это тест.', 'مرحبا بالعالم', 'こんにちは世界', '안녕하세요 세계', '🙂 👩‍👩‍👧 👍🏽'];
  let mixed = '';
  for (let i = 0; mixed.length < 20_000; i += 1) mixed += `${scripts[(i * 7) % scripts.length]} ${i} `;
  return `${docs}\n\n${mixed}`;
}

export async function runTokenizerPass(options: { reps: number; log?: (line: string) => void }): Promise<TokenizerRun> {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-tokenizer-'));
  const corpusFile = join(dir, 'corpus.txt');
  const corpus = tokenizerCorpus();
  writeFileSync(corpusFile, corpus);
  const reps: TokenizerRep[] = [];
  try {
    for (let rep = 0; rep < options.reps; rep += 1) {
      for (const impl of rep % 2 === 0 ? IMPLS : [...IMPLS].reverse()) {
        const child = new Child({ name: `tokenizer-worker ${impl}`, command: NODE, args: ['--expose-gc', WORKER, JSON.stringify({ impl, corpus: corpusFile })] });
        const result = await child.jsonLine<TokenizerRep>('impl', 60_000);
        await child.exit();
        reps.push(result);
        options.log?.(`tokenizer ${impl}: first use ${result.firstUseMs.toFixed(0)} ms, +${result.rssMb.toFixed(1)} MB RSS, ${result.tokens} tokens in ${result.countMs.toFixed(0)} ms`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { corpus: `${corpus.length.toLocaleString('en-US')} characters (README, docs/budgets.md, docs/translation.md and a mix of six scripts and emoji)`, reps };
}
