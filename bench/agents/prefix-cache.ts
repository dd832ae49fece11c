// The prompt cache the agent mock reports, modelled on the providers' own rules. A prompt is a sequence of
// blocks (tools, system or instructions, then each message's content blocks or each input item); a cache
// entry is the hash of everything up to a block boundary. Anthropic caches only at `cache_control`
// breakpoints (at most four, 1,024 tokens at least) and finds a hit at a breakpoint or up to 20 blocks
// before it; OpenAI caches every prefix of 1,024 tokens or more, in steps of 128. Tokens are bytes / 4.
import { createHash } from 'node:crypto';

export interface PromptBlock {
  /** The block's JSON without `cache_control`: a breakpoint moving does not change the prefix. */
  text: string;
  breakpoint: boolean;
}

interface Boundary {
  hash: string;
  tokens: number;
  breakpoint: boolean;
}

export interface CacheReading {
  /** Prompt tokens in all. */
  input: number;
  /** Tokens read from this deployment's cache. */
  read: number;
  /** Tokens written to it (Anthropic: up to the last breakpoint beyond the read). */
  written: number;
  /** Tokens a single cache shared by every deployment would have read: what the prompt could have hit. */
  cacheable: number;
}

export type CacheRules = 'anthropic' | 'openai';

const MIN_TOKENS = 1024;
const OPENAI_STEP = 128;
const LOOKBACK_BLOCKS = 20;
export const MAX_BREAKPOINTS = 4;

export const tokensOf = (bytes: number): number => Math.ceil(bytes / 4);

function boundaries(blocks: readonly PromptBlock[]): Boundary[] {
  const hash = createHash('sha1');
  let bytes = 0;
  return blocks.map((block) => {
    hash.update(block.text);
    hash.update('\u0000');
    bytes += block.text.length;
    return { hash: hash.copy().digest('hex'), tokens: tokensOf(bytes), breakpoint: block.breakpoint };
  });
}

/** The longest prefix the set holds, in tokens, under the rules. */
function lookup(rules: CacheRules, bounds: readonly Boundary[], cache: ReadonlySet<string>): number {
  if (rules === 'openai') {
    for (let i = bounds.length - 1; i >= 0; i--) {
      const b = bounds[i];
      if (b.tokens >= MIN_TOKENS && cache.has(b.hash)) return Math.floor(b.tokens / OPENAI_STEP) * OPENAI_STEP;
    }
    return 0;
  }
  for (let i = bounds.length - 1; i >= 0; i--) {
    if (!bounds[i].breakpoint) continue;
    for (let j = i; j >= 0 && j >= i - LOOKBACK_BLOCKS; j--) {
      if (bounds[j].tokens >= MIN_TOKENS && cache.has(bounds[j].hash)) return bounds[j].tokens;
    }
  }
  return 0;
}

function store(rules: CacheRules, bounds: readonly Boundary[], cache: Set<string>): number {
  let last = 0;
  for (const b of bounds) {
    if (b.tokens < MIN_TOKENS || (rules === 'anthropic' && !b.breakpoint)) continue;
    cache.add(b.hash);
    last = b.tokens;
  }
  return last;
}

/** Prefix caches per deployment, beside one shared by all of them (the `cacheable` reference). */
export class PrefixCaches {
  readonly #byDeployment = new Map<string, Set<string>>();
  #shared = new Set<string>();

  read(deployment: string, rules: CacheRules, blocks: readonly PromptBlock[]): CacheReading {
    const bounds = boundaries(blocks);
    let cache = this.#byDeployment.get(deployment);
    if (cache === undefined) {
      cache = new Set();
      this.#byDeployment.set(deployment, cache);
    }
    const read = lookup(rules, bounds, cache);
    const cacheable = lookup(rules, bounds, this.#shared);
    const stored = store(rules, bounds, cache);
    store(rules, bounds, this.#shared);
    const input = bounds.length === 0 ? 0 : bounds[bounds.length - 1].tokens;
    return { input, read, written: Math.max(0, stored - read), cacheable };
  }

  clear(): void {
    this.#byDeployment.clear();
    this.#shared = new Set();
  }
}
