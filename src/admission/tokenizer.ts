// The o200k BPE tokenizer, loaded on first use. Its tables cost about 60 MB of memory and 150 ms to
// build, and most requests never need them: admission's quick pass counts bytes, and only a key near a
// limit, a translated Anthropic stream's message_start, a stream cut before its usage, or a
// count_tokens call for an OpenAI-style model asks for real token counts. Loading is synchronous
// (require of the package's CommonJS build) so an estimate never depends on timing.
import { createRequire } from 'node:module';

type CountTokens = (text: string, options?: { disallowedSpecial?: Set<string> }) => number;

let counter: CountTokens | null = null;

export function countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number {
  counter ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens }).countTokens;
  return counter(text, options);
}

/** Whether the tables are in memory (tests check that the quick pass never loads them). */
export function tokenizerLoaded(): boolean {
  return counter !== null;
}
