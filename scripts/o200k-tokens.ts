// Writes src/tokenizer/o200k-base.tokens, the tokenizer's vocabulary, from gpt-tokenizer's o200k_base
// ranks (a dev dependency: the gateway reads only the file). Run after upgrading gpt-tokenizer:
//   node scripts/o200k-tokens.ts          (rewrites the file)
//   node scripts/o200k-tokens.ts --check  (exit 1 when the file differs from the package's ranks)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encodeVocabulary } from '../src/tokenizer/o200k-table.ts';
import { O200K_TABLE_FILE } from '../src/tokenizer/count-tokens.ts';

/** gpt-tokenizer's ranks as byte strings: a rank is a string when its bytes are valid UTF-8, else the bytes. */
export function packageRanks(): Uint8Array[] {
  const ranks = (
    createRequire(import.meta.url)('gpt-tokenizer/bpeRanks/o200k_base') as { default: Array<string | number[]> }
  ).default;
  const encoder = new TextEncoder();
  return ranks.map((value, rank) => {
    if (value === undefined) throw new Error(`gpt-tokenizer's o200k_base has no token at rank ${rank}`);
    return typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value);
  });
}

if (import.meta.main) {
  const wanted = encodeVocabulary(packageRanks());
  if (process.argv.includes('--check')) {
    const same = Buffer.compare(readFileSync(O200K_TABLE_FILE), wanted) === 0;
    console.log(
      same
        ? 'o200k-base.tokens matches gpt-tokenizer'
        : 'o200k-base.tokens differs from gpt-tokenizer: run node scripts/o200k-tokens.ts',
    );
    process.exitCode = same ? 0 : 1;
  } else {
    writeFileSync(O200K_TABLE_FILE, wanted);
    console.log(`wrote ${O200K_TABLE_FILE.pathname} (${wanted.length} bytes)`);
  }
}
