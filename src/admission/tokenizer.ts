// The tokenizer lives in src/tokenizer/ now; this path stays while branches that import it merge.
export { O200K_SPLIT, O200K_TABLE_FILE, countTokens, tokenizerLoaded, warmTokenizer } from '../tokenizer/count-tokens.ts';
