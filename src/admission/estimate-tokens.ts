// Prompt-token estimate of a request body (either dialect), used only to size the reservation.
//
// The bill always comes from the upstream's usage; an error here only makes a reservation too big
// (a request refused that would have fitted) or too small (spent may pass the budget by that error).
//
// How the estimate is made:
// - Text: every string in `system`, `messages` and the tool definitions, tokenized with o200k_base
//   (./tokenizer.ts) — exact for gpt-4o and newer OpenAI models, the general fallback for the rest.
// - Structure: tool definitions, tool_use inputs and JSON schemas are counted as their JSON text
//   (keys matter); each message adds MESSAGE_OVERHEAD_TOKENS and the reply priming adds
//   REPLY_PRIMING_TOKENS (OpenAI's documented chat framing: about 3–4 per message, 3 per reply).
// - Images, audio, PDFs and files: a flat MEDIA_TOKENS each (Anthropic charges ~1,600 for a
//   1.15-megapixel image, its largest unresized size; OpenAI high detail is 765 for 1024×1024).
// - Cap: at most TOKENIZER_CHAR_CAP characters per request go through the BPE tokenizer, cut into
//   CHUNK_CHARS pieces (cut before a space when one is near) because BPE time grows with the square
//   of a run without spaces: chunked and capped, a long CJK run costs no more than the cap allows.
//   Characters past the cap count at the tokens-per-char ratio measured on
//   the tokenized part, never below chars/4 (so English, ~4.5 chars/token, is slightly overestimated).
// - Models whose name does not look like an OpenAI one (Claude, Llama, …) get NON_OPENAI_MARGIN on
//   top: their tokenizers produce more tokens than o200k for the same text.
import { isObject, nestedDeeperThan } from '../core/json.ts';
import { countTokens } from '../tokenizer/count-tokens.ts';
import { MEDIA_TOKENS, mediaTokens } from './media-tokens.ts';
import { MAX_TOKENS_PER_KIND } from '../core/usage.ts';
import type { Dialect } from '../core/dialect.ts';

export const TOKENIZER_CHAR_CAP = 8192;
export const CHUNK_CHARS = 256;
/** How far back from a chunk's end a space is looked for. */
const SPACE_LOOKBACK = 64;
export { MEDIA_TOKENS };
/**
 * The system prompt a provider adds when a request carries tools (Anthropic: 313–346 tokens for current
 * models): billed as prompt, and not in the body.
 */
export const TOOL_PROMPT_TOKENS = 350;
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const REPLY_PRIMING_TOKENS = 3;
export const NON_OPENAI_MARGIN = 1.2;
/** The approximation for text past the cap when nothing was tokenized to measure a ratio. */
export const CHARS_PER_TOKEN = 4;

const OPENAI_MODEL = /^(?:ft:)?(?:gpt-|chatgpt-|o\d|text-|davinci|babbage)/i;
const MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image',
  'image_url',
  'input_image',
  'input_audio',
  'audio',
  'document',
  'file',
  'input_file',
]);
/** Keys whose values are framing or opaque ids, not prompt text. */
const SKIPPED_KEYS: ReadonlySet<string> = new Set([
  'type',
  'role',
  'id',
  'tool_use_id',
  'tool_call_id',
  'cache_control',
  'signature',
  'media_type',
  'detail',
]);
/**
 * Content deeper than this is not walked: no prompt nests so far, and a body of nothing but brackets
 * would otherwise overflow the stack (the text is still inside the quick pass's byte bound).
 */
const MAX_WALK_DEPTH = 64;
/** Keys whose object values are sent as JSON text. */
const JSON_KEYS: ReadonlySet<string> = new Set(['input', 'parameters', 'input_schema', 'schema', 'arguments']);

interface Collected {
  pieces: string[];
  /** Tokens of the media parts (media-tokens.ts), summed. */
  media: number;
  /** The upstream model: picks the image formula. */
  model: string;
  messages: number;
  /** False in the quick pass: only media and messages are counted, the text is bounded by size. */
  textNeeded: boolean;
}

export interface EstimateOptions {
  /** The upstream model name when it differs from `body.model` (aliases); picks the margin. */
  model?: string;
  /** Characters tokenized at most (default TOKENIZER_CHAR_CAP); the rest is extrapolated. */
  charCap?: number;
  /**
   * Admission's quick pass: the request's size in bytes stands for all of its text. A byte-level BPE
   * never makes more tokens than a text has UTF-8 bytes, and the JSON body holds every prompt string
   * (escaping only adds bytes), so this is an upper bound that costs no tokenizer and no scan of the
   * text; only media parts are counted on top. Used while the key is far from every limit.
   */
  boundBytes?: number;
}

export function estimatePromptTokens(body: unknown, options: EstimateOptions = {}): number {
  if (!isObject(body)) return REPLY_PRIMING_TOKENS;
  const bound = options.boundBytes;
  const model = options.model ?? (typeof body.model === 'string' ? body.model : '');
  const found: Collected = { pieces: [], media: 0, model, messages: 0, textNeeded: bound === undefined };
  if (body.system !== undefined) {
    found.messages += 1;
    collect(body.system, found);
  }
  if (Array.isArray(body.messages)) {
    found.messages += body.messages.length;
    collect(body.messages, found);
  }
  // Gemini's generateContent: `contents` are its messages, `systemInstruction` its system prompt.
  if (Array.isArray(body.contents)) {
    found.messages += body.contents.length;
    collect(body.contents, found);
  }
  if (body.systemInstruction !== undefined) {
    found.messages += 1;
    collect(body.systemInstruction, found);
  }
  // Responses API: `instructions` is its system prompt, `input` a string or a list of items.
  if (body.instructions !== undefined) {
    found.messages += 1;
    collect(body.instructions, found);
  }
  if (body.input !== undefined && body.messages === undefined) {
    found.messages += Array.isArray(body.input) ? body.input.length : 1;
    collect(body.input, found);
  }
  if (found.textNeeded) {
    for (const key of ['tools', 'functions', 'response_format', 'tool_choice', 'text'] as const) {
      if (body[key] !== undefined) found.pieces.push(jsonText(body[key]));
    }
  }
  const text = bound ?? countText(found.pieces, options.charCap ?? TOKENIZER_CHAR_CAP);
  const tools = hasTools(body) ? TOOL_PROMPT_TOKENS : 0;
  const base = text + found.media + tools + found.messages * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
  return OPENAI_MODEL.test(model) ? base : Math.ceil(base * NON_OPENAI_MARGIN);
}

/** Worst-case output: `max_completion_tokens` or `max_tokens` (or the default), times `n` choices. */
/**
 * Output tokens a request may produce, as its upstream will read it. Messages have one limit,
 * `max_tokens` (a `max_completion_tokens` there is an unknown field no Anthropic-style upstream reads,
 * and `n` does not exist); chat has two names for it, and an OpenAI-compatible server may read either,
 * so the larger counts. `null` when the request names none.
 */
export function namedMaxTokens(body: unknown, dialect: Dialect = 'openai'): number | null {
  if (!isObject(body)) return null;
  if (dialect === 'anthropic') return positiveInt(body.max_tokens);
  if (dialect === 'gemini')
    return isObject(body.generationConfig) ? positiveInt(body.generationConfig.maxOutputTokens) : null;
  if (dialect === 'responses') return positiveInt(body.max_output_tokens);
  const completion = positiveInt(body.max_completion_tokens);
  const tokens = positiveInt(body.max_tokens);
  if (completion === null) return tokens;
  return tokens === null ? completion : Math.max(completion, tokens);
}

/** The output a request reserves: its named limit (or the default) times `n` on chat. */
export function requestedMaxTokens(body: unknown, defaultMaxTokens: number, dialect: Dialect = 'openai'): number {
  const limit = namedMaxTokens(body, dialect) ?? defaultMaxTokens;
  const n = dialect === 'openai' && isObject(body) ? (positiveInt(body.n) ?? 1) : 1;
  // A client may ask for max_tokens 1e308 (the upstream refuses it); no request bills more output
  // than MAX_TOKENS_PER_KIND, so the worst case stops there and stays an integer the stores can hold.
  return Math.min(limit * n, MAX_TOKENS_PER_KIND);
}

/** Tokens a request may consume at most: what TPM and the token budget reserve. */
export function reservationTokens(sizes: { promptTokens: number; maxTokens: number }): number {
  return sizes.promptTokens + sizes.maxTokens;
}

function collect(value: unknown, found: Collected, depth = 0): void {
  if (typeof value === 'string') {
    if (value !== '' && found.textNeeded) found.pieces.push(value);
    return;
  }
  if (depth > MAX_WALK_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  if (typeof value.type === 'string' && MEDIA_TYPES.has(value.type)) {
    // A plain-text document is its text (Anthropic `source: { type: 'text', data }`).
    const source = value.source;
    if (isObject(source) && source.type === 'text' && typeof source.data === 'string') {
      if (found.textNeeded) found.pieces.push(source.data);
      return;
    }
    found.media += mediaTokens(value, found.model, found.textNeeded);
    return;
  }
  if (value.inlineData !== undefined || value.fileData !== undefined) {
    found.media += mediaTokens(geminiMediaPart(value), found.model, found.textNeeded);
    return;
  }
  // for-in over a parsed JSON object (own, enumerable keys only): no entries array per object.
  for (const key in value) {
    if (SKIPPED_KEYS.has(key)) continue;
    const inner = value[key];
    if (JSON_KEYS.has(key) && isObject(inner)) {
      if (found.textNeeded) found.pieces.push(jsonText(inner));
    } else collect(inner, found, depth + 1);
  }
}

function hasTools(body: Record<string, unknown>): boolean {
  return (
    (Array.isArray(body.tools) && body.tools.length > 0) || (Array.isArray(body.functions) && body.functions.length > 0)
  );
}

/** JSON text of a schema or tool input; one nested too deep to serialise counts as nothing. */
function jsonText(value: unknown): string {
  if (nestedDeeperThan(value, MAX_WALK_DEPTH)) return '';
  return JSON.stringify(value) ?? '';
}

/**
 * Tokens of text pieces (a reply's delivered text): the first `cap` characters tokenized, the rest at
 * the ratio measured on them (never below chars/4), as the prompt estimate counts its text.
 */
export function countText(pieces: string[], cap: number = TOKENIZER_CHAR_CAP): number {
  let budget = cap;
  let tokens = 0;
  let tokenizedChars = 0;
  let restChars = 0;
  for (const piece of pieces) {
    const take = Math.min(piece.length, budget);
    if (take > 0) {
      tokens += countChunked(piece, take);
      tokenizedChars += take;
      budget -= take;
    }
    restChars += piece.length - take;
  }
  if (restChars === 0) return tokens;
  const ratio = Math.max(tokenizedChars > 0 ? tokens / tokenizedChars : 0, 1 / CHARS_PER_TOKEN);
  return tokens + Math.ceil(restChars * ratio);
}

/**
 * Tokens of text[0, end) in pieces of about CHUNK_CHARS. A piece ends before a space when one is
 * near (o200k starts words with their space, so that cut changes no token), else anywhere but
 * inside a surrogate pair.
 */
function countChunked(text: string, end: number): number {
  let tokens = 0;
  let start = 0;
  while (start < end) {
    let stop = Math.min(start + CHUNK_CHARS, end);
    if (stop < end) {
      const space = text.lastIndexOf(' ', stop);
      if (space > stop - SPACE_LOOKBACK && space > start) stop = space;
      else if (isHighSurrogate(text.charCodeAt(stop - 1))) stop += 1;
    }
    tokens += countTokens(text.slice(start, stop));
    start = stop;
  }
  return tokens;
}

/**
 * Prompt tokens of an embeddings request's `input`: token arrays count exactly, texts as a prompt does
 * (no message framing: an embedding has none).
 */
export function estimateEmbeddingTokens(input: unknown, options: EstimateOptions = {}): number {
  const items = Array.isArray(input) ? input : [input];
  let tokens = 0;
  const texts: string[] = [];
  for (const item of items) {
    if (typeof item === 'number') tokens += 1;
    else if (Array.isArray(item)) tokens += item.length;
    else if (typeof item === 'string') texts.push(item);
  }
  if (texts.length === 0) return Math.max(1, tokens);
  const counted = options.boundBytes ?? countText(texts, options.charCap ?? TOKENIZER_CHAR_CAP);
  const model = options.model ?? '';
  return Math.max(1, tokens + (OPENAI_MODEL.test(model) ? counted : Math.ceil(counted * NON_OPENAI_MARGIN)));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function positiveInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

/** A Gemini `inlineData` / `fileData` part in the shape mediaTokens reads (an image or a document). */
function geminiMediaPart(part: Record<string, unknown>): Record<string, unknown> {
  const media = isObject(part.inlineData) ? part.inlineData : isObject(part.fileData) ? part.fileData : {};
  const mime = typeof media.mimeType === 'string' ? media.mimeType : '';
  const data = typeof media.data === 'string' ? media.data : undefined;
  return {
    type: mime.startsWith('image/') ? 'image' : 'document',
    source: data === undefined ? undefined : { type: 'base64', media_type: mime, data },
  };
}
