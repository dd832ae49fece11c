// One tokenizer in a fresh process (run with --expose-gc): what its first use costs (the time to load
// and count a short text, the memory it keeps after a full GC) and how fast it counts a corpus once warm.
// argv: '{"impl":"modelgate"|"gpt-tokenizer","corpus":"<file>"}'; prints one JSON line.
import { readFileSync } from 'node:fs';
import type { TokenizerRep } from './lib/tokenizer-pass.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { impl: TokenizerRep['impl']; corpus: string };
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const corpus = readFileSync(options.corpus, 'utf8');
const MB = 1024 * 1024;

gc();
const before = process.memoryUsage();
const started = process.hrtime.bigint();
let count: (text: string) => number;
if (options.impl === 'gpt-tokenizer') {
  const reference = await import('gpt-tokenizer/encoding/o200k_base');
  const plain = { disallowedSpecial: new Set<string>() };
  count = (text) => reference.countTokens(text, plain);
} else {
  count = (await import('../src/tokenizer/count-tokens.ts')).countTokens;
}
count('How many tokens is this?');
const firstUseMs = Number(process.hrtime.bigint() - started) / 1e6;
gc();
const after = process.memoryUsage();

// Five counts of the corpus; the median is the warm speed (the first ones also compile the hot code).
const times: number[] = [];
let tokens = 0;
for (let i = 0; i < 5; i += 1) {
  const countStarted = process.hrtime.bigint();
  tokens = count(corpus);
  times.push(Number(process.hrtime.bigint() - countStarted) / 1e6);
}
const countMs = times.sort((a, b) => a - b)[2]!;

const rep: TokenizerRep = {
  impl: options.impl,
  firstUseMs,
  rssMb: (after.rss - before.rss) / MB,
  heapMb: (after.heapUsed - before.heapUsed) / MB,
  chars: corpus.length,
  tokens,
  countMs,
};
process.stdout.write(`${JSON.stringify(rep)}\n`);
