// Masks anything that looks like a credential before text leaves the gateway (errors, logs, listings).

/** First 4 and last 4 characters: the only form a key may take in logs, errors, listings and tests. */
export function maskKey(key: string): string {
  if (key.length <= 8) return '****';
  return `${key.slice(0, 4)}…${key.slice(-4)}`;
}

// Provider keys by their prefix (`sk-`, `pk_`, `rk-`…) at a word's start, and a Bearer token after its word.
const PREFIXED = /\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{12,}/g;
const BEARER = /(Bearer\s+)([A-Za-z0-9._\-]{12,})/gi;
// `sk-` keys are matched wherever they start: a key glued to the text before it (`Xsk-…`, `/v1/_sk-…`)
// is still a key. Over-masking a word that happens to end in "sk-" costs nothing in an error message.
const KEYLIKE = /(sk-(?:ant-)?[A-Za-z0-9_-]{12,})|\b([A-Za-z0-9_-]{0,8}(?:key|token)[-_][A-Za-z0-9_-]{16,})/gi;

/**
 * Masks key-shaped substrings (the gateway's own `sk-…` keys, provider keys, Bearer tokens) to their first
 * and last four characters, with no list of secrets: the one masking of text on every path.
 */
export function maskKeyLike(text: string): string {
  return text
    .replace(PREFIXED, (k) => maskKey(k))
    .replace(BEARER, (_m, word: string, k: string) => `${word}${maskKey(k)}`)
    .replace(KEYLIKE, (m) => maskKey(m));
}

/**
 * Any run of this many characters of a configured secret is masked, wherever it appears: an upstream that
 * echoes part of a key (cut, or glued to other text) leaks no more than this minus one.
 */
export const SECRET_PIECE = 12;

/**
 * Configured secrets are masked in any case and in base64 too (an upstream echoing an Authorization or
 * Basic header it was sent): every SECRET_PIECE-character piece of each form is looked up, lower-cased,
 * so a secret cut short, upper-cased or encoded at any byte alignment is found as surely as a whole one.
 */
export class SecretMasker {
  /** Every SECRET_PIECE-character piece of every form of every secret, lower-cased. */
  readonly #pieces = new Set<string>();
  /** Secrets shorter than a piece (8 to 11 characters), matched whole, lower-cased. */
  readonly #short: string[] = [];

  /** `secrets`: the configured provider keys and credential header values. */
  constructor(secrets: string[]) {
    this.add(secrets);
  }

  /** Secrets of providers added while running (admin API, a reloaded file): masked from now on too. */
  add(secrets: readonly string[]): void {
    for (const secret of secrets) {
      if (secret.length < 8) continue;
      if (secret.length < SECRET_PIECE) {
        this.#short.push(secret.toLowerCase());
        continue;
      }
      for (const form of [secret, ...base64Forms(secret)]) {
        const lower = asciiLower(form);
        for (let i = 0; i + SECRET_PIECE <= lower.length; i++) this.#pieces.add(lower.slice(i, i + SECRET_PIECE));
      }
    }
  }

  mask(text: string): string {
    if (this.#pieces.size === 0 && this.#short.length === 0) return maskKeyLike(text);
    const lower = asciiLower(text);
    const spans: [number, number][] = [];
    for (let i = 0; i + SECRET_PIECE <= lower.length; i++) {
      if (!this.#pieces.has(lower.slice(i, i + SECRET_PIECE))) continue;
      const last = spans.at(-1);
      if (last !== undefined && i <= last[1]) last[1] = i + SECRET_PIECE;
      else spans.push([i, i + SECRET_PIECE]);
    }
    for (const s of this.#short) {
      for (let at = lower.indexOf(s); at !== -1; at = lower.indexOf(s, at + s.length)) spans.push([at, at + s.length]);
    }
    if (spans.length === 0) return maskKeyLike(text);
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    for (const [start, end] of spans) {
      if (start < from) continue;
      out += text.slice(from, start) + maskKey(text.slice(start, end));
      from = end;
    }
    return maskKeyLike(out + text.slice(from));
  }

  /**
   * An upstream's error body with every string in it masked (messages, params, codes, types, nested
   * fields, object keys) before anything reads or cuts it; JSON escapes (`\u0051`) are undone by the
   * parse, so a secret written with them is found too. Text that is not JSON is masked as text.
   */
  maskErrorBody(text: string): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.mask(text);
    }
    const masked = this.#maskDeep(parsed, 0);
    return masked === parsed && typeof parsed !== 'string' ? this.mask(text) : JSON.stringify(masked);
  }

  #maskDeep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (value === null || typeof value !== 'object') return value;
    // Past this depth the text is masked as text (no error body nests so far; the stack stays bounded).
    if (depth > MAX_DEPTH) return this.mask(JSON.stringify(value));
    if (Array.isArray(value)) return value.map((v) => this.#maskDeep(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.mask(k)] = this.#maskDeep(v, depth + 1);
    return out;
  }
}

const MAX_DEPTH = 32;

/** Lower-cases ASCII letters only, so every index in the result is the same character's in the input. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * The base64 (and base64url) text a secret becomes inside a longer encoded string, at each of the three
 * byte alignments: only the characters that depend on the secret's bytes alone, whatever surrounds it.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms: string[] = [];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((4 * k) / 3), Math.floor((8 * (k + bytes.length)) / 6));
    forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}
