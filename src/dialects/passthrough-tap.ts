// The same-dialect stream path: forwards upstream SSE bytes, rewriting the model name, reading usage from
// the few events that carry it, and (OpenAI) dropping the usage chunk the gateway asked for on the
// caller's behalf. This runs for every streamed token, so it works per block of whole lines with a
// handful of native string searches over the block read as latin1: one character per byte, so nothing
// is validated or transcoded and string offsets are byte offsets. A block the tap leaves alone goes
// out as the upstream's bytes; one it changed is written back to bytes the same way. Every pattern
// searched is ASCII, and UTF-8 never puts an ASCII byte inside a multi-byte character, so a match is
// never inside one. Search anchors avoid a leading `"` (V8's search is several times slower for
// patterns starting with a common character). The anchors are compact JSON (`"key":"value"`), as the
// official APIs and most servers write it; a stream whose first lines show `": ` (Python's json.dumps
// default) is also searched with the spaced forms, so its usage is still read.
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, noteServedTier, type Usage } from '../core/usage.ts';
import { readAnthropicUsage } from './anthropic-messages/usage.ts';
import { readOpenAIUsage } from './openai-chat/usage.ts';
import { isObject } from '../core/json.ts';
import { SseLineBlocks } from './sse-line-blocks.ts';

/** What masks credentials in text (core/mask-secrets.ts's SecretMasker). */
export interface TextMasker {
  mask(text: string): string;
}

/**
 * Delivered bytes kept (as the blocks already read, no copy) so that a stream left without its usage is
 * billed its delivered text; past this the rest is only measured, and counted at the kept part's ratio.
 */
const KEPT_BYTES = 1048576;

export class PassthroughStreamTap {
  readonly usage: Usage = emptyUsage();
  /** True once the upstream reported usage itself (otherwise the delivered-event count is used). */
  sawUsage = false;
  /** The stream reached its normal end ([DONE] or message_stop). */
  finished = false;
  #dialect: Dialect;
  #clientModelJson: string;
  #rewrite: boolean;
  /** `model":"<upstream name>"` as the upstream first wrote it (servers answer with dated names too). */
  #modelKey: string | null = null;
  #clientModelKey = '';
  /** OpenAI: chunks seen (each carries "model"); Anthropic: content_block_delta events seen. */
  #events = 0;
  #stripUsageChunk: boolean;
  readonly #lines = new SseLineBlocks();
  /** The last two blocks read, as latin1 text: where end() looks for an answer that finished without [DONE]. */
  #previous = '';
  #last = '';
  /** null until the first block: whether the upstream writes `"key": value` with a space. */
  #spaced: boolean | null = null;
  /** Masks credentials in the upstream's own error events, which may echo the gateway's provider key. */
  #masker: TextMasker | null;
  /** The blocks forwarded so far, as the upstream sent them (up to KEPT_BYTES), and the bytes forwarded past them. */
  readonly delivered: Buffer[] = [];
  #keptBytes = 0;
  unkeptBytes = 0;

  constructor(opts: {
    dialect: Dialect;
    clientModel: string;
    upstreamModel: string;
    stripUsageChunk: boolean;
    masker?: TextMasker;
  }) {
    this.#dialect = opts.dialect;
    this.#masker = opts.masker ?? null;
    this.#clientModelJson = latin1(JSON.stringify(opts.clientModel));
    this.#rewrite = opts.clientModel !== opts.upstreamModel;
    this.#stripUsageChunk = opts.stripUsageChunk;
  }

  /**
   * Events forwarded: the documented fallback count of output tokens when a stream is cut before its
   * usage arrives (OpenAI: chunks delivered, one token each as OpenAI streams them; Anthropic: deltas).
   */
  get deltaEvents(): number {
    return this.#events;
  }

  /** What to forward for this chunk of upstream bytes (empty when nothing is to be sent yet): whole lines only. */
  push(chunk: Uint8Array): Buffer {
    const block = this.#lines.push(chunk);
    return block.length === 0 ? block : this.#forward(block);
  }

  /** The block as it goes out; a reference to the upstream's bytes is kept, for billing a stream left without usage. */
  #forward(bytes: Buffer): Buffer {
    if (this.#keptBytes < KEPT_BYTES) {
      this.delivered.push(bytes);
      this.#keptBytes += bytes.length;
    } else {
      this.unkeptBytes += bytes.length;
    }
    const text = bytes.toString('latin1');
    const out = this.#block(text);
    return out === text ? bytes : Buffer.from(out, 'latin1');
  }

  /**
   * Whether the last bytes read were the upstream's own error event (OpenAI `data: {"error":…}`,
   * Anthropic `event: error`): a stream that then stops already ends in a well-formed error.
   */
  endsWithError(): boolean {
    const tail = (this.#previous + this.#last).replace(/[\r\n]+$/, '');
    const event = tail.slice(Math.max(tail.lastIndexOf('\n\n'), tail.lastIndexOf('\r\n\r\n')) + 1).trimStart();
    return this.#dialect === 'openai' ? /^data: ?\{"error"/.test(event) : /^event: ?error\r?\n/.test(event);
  }

  /** Whatever is left at end of input. */
  end(): Buffer {
    const rest = this.#lines.end();
    const out = rest.length === 0 ? rest : this.#forward(rest);
    if (this.finished || this.#dialect !== 'openai' || !this.sawUsage) return out;
    // An OpenAI-style upstream that closes after its finish_reason and usage chunks without `[DONE]`
    // (some servers do) has answered in full: the caller gets the terminator, not an error after a
    // complete answer, as a translated stream already does.
    const tail = this.#previous + this.#last;
    if (!tail.includes('finish_reason":"') && !(this.#spaced === true && tail.includes('finish_reason": "')))
      return out;
    this.finished = true;
    const blank = tail.endsWith('\n\n') || tail.endsWith('\r\n\r\n') ? '' : tail.endsWith('\n') ? '\n' : '\n\n';
    return Buffer.concat([out, Buffer.from(`${blank}data: [DONE]\n\n`)]);
  }

  #block(block: string): string {
    this.#previous = this.#last;
    this.#last = block;
    // A false positive (`\": ` inside the first text) only adds a second search per block.
    this.#spaced ??= block.includes('": ');
    return this.#dialect === 'openai' ? this.#openai(block) : this.#anthropic(block);
  }

  #openai(block: string): string {
    if (this.#masker !== null && block.includes('{"error"')) block = this.#masked(block);
    let usageAt = block.indexOf('usage":{');
    if (usageAt === -1 && this.#spaced === true) usageAt = block.indexOf('usage": {');
    if (usageAt !== -1) block = this.#openaiUsage(block, usageAt);
    if (!this.finished && block.includes('[DONE]')) this.finished = true;
    return this.#renameAndCount(block);
  }

  #openaiUsage(block: string, usageAt: number): string {
    const [start, end] = lineAround(block, usageAt);
    const parsed = parseData(block.slice(start, end));
    if (!parsed || !readOpenAIUsage(parsed.usage, this.usage)) return block;
    this.sawUsage = true;
    // The usage chunk is a whole chunk: its service_tier is the tier the request was served at.
    noteServedTier(this.usage, parsed.service_tier);
    if (!this.#stripUsageChunk || !Array.isArray(parsed.choices) || parsed.choices.length > 0) return block;
    // Drop the usage event and the blank line that ends it (it is not counted as an event either).
    this.#events--;
    // The line's own end, then the blank line after it: LF, CRLF or a lone CR each.
    let after = end;
    for (let i = 0; i < 2; i++) {
      if (block.charCodeAt(after) === 13) after++;
      if (block.charCodeAt(after) === 10) after++;
    }
    return block.slice(0, start) + block.slice(after);
  }

  /** One pass over the model keys renames them and counts the chunks (every chunk carries "model"). */
  #renameAndCount(block: string): string {
    if (this.#modelKey === null && !this.#learnModelKey(block)) return block;
    const key = this.#modelKey!;
    let at = block.indexOf(key);
    if (at === -1) return block;
    if (!this.#rewrite) {
      for (; at !== -1; at = block.indexOf(key, at + key.length)) if (block.charCodeAt(at - 1) === 34) this.#events++;
      return block;
    }
    let out = '';
    let from = 0;
    for (; at !== -1; at = block.indexOf(key, at + key.length)) {
      // The anchor has no leading quote (faster search): a match inside a longer key is not ours.
      if (block.charCodeAt(at - 1) !== 34) continue;
      this.#events++;
      out += block.slice(from, at) + this.#clientModelKey;
      from = at + key.length;
    }
    return from === 0 ? block : out + block.slice(from);
  }

  #learnModelKey(text: string): boolean {
    const key = modelKeyIn(text);
    if (key === null) return false;
    this.#modelKey = key;
    this.#clientModelKey = key.slice(0, key.lastIndexOf('"', key.length - 2)) + this.#clientModelJson;
    return true;
  }

  #anthropic(block: string): string {
    // Most chunks are one content_block_delta event: one prefix test and one short search, then forward.
    if (block.startsWith('event: content_block_delta\n') && block.indexOf('\nevent:', 26) === -1) {
      this.#events++;
      return block;
    }
    if (this.#masker !== null && block.includes('event: error')) block = this.#masked(block);
    this.#events += count(block, 'type":"content_block_delta');
    if (this.#spaced === true) this.#events += count(block, 'type": "content_block_delta');
    if (block.includes('message_start')) block = this.#anthropicEvent(block, 'message_start');
    if (block.includes('message_delta')) block = this.#anthropicEvent(block, 'message_delta');
    if (!this.finished && block.includes('message_stop')) this.finished = true;
    return block;
  }

  /** The block with credentials masked: an error event, rare, so decoded to text and back. */
  #masked(block: string): string {
    const text = Buffer.from(block, 'latin1').toString('utf8');
    const masked = this.#masker!.mask(text);
    return masked === text ? block : latin1(masked);
  }

  /** Reads usage from a message_start / message_delta data line (rewriting message_start's model). */
  #anthropicEvent(block: string, type: 'message_start' | 'message_delta'): string {
    let at = block.indexOf(`type":"${type}"`);
    if (at === -1 && this.#spaced === true) at = block.indexOf(`type": "${type}"`);
    if (at === -1) return block;
    const [start, end] = lineAround(block, at);
    const line = block.slice(start, end);
    const parsed = parseData(line);
    if (!parsed) return block;
    const usage = type === 'message_start' && isObject(parsed.message) ? parsed.message.usage : parsed.usage;
    if (readAnthropicUsage(usage, this.usage)) this.sawUsage = true;
    if (type !== 'message_start' || !this.#rewrite) return block;
    if (this.#modelKey === null && !this.#learnModelKey(line)) return block;
    return block.slice(0, start) + line.replaceAll(this.#modelKey!, this.#clientModelKey) + block.slice(end);
  }
}

/** [start, end) of the line holding index `at`; lines end in LF, CRLF or a lone CR (the SSE rule). */
export function lineAround(block: string, at: number): [number, number] {
  const start = Math.max(block.lastIndexOf('\n', at), block.lastIndexOf('\r', at)) + 1;
  let end = block.indexOf('\n', at);
  const cr = block.indexOf('\r', at);
  if (cr !== -1 && (end === -1 || cr < end)) end = cr;
  return [start, end === -1 ? block.length : end];
}

/** The literal `model":"value"` text (with whatever spaces the upstream used, no leading quote), or null. */
export function modelKeyIn(text: string): string | null {
  const at = text.indexOf('"model"');
  if (at === -1) return null;
  let j = at + 7;
  while (text.charCodeAt(j) === 32) j++;
  if (text.charCodeAt(j) !== 58) return null;
  j++;
  while (text.charCodeAt(j) === 32) j++;
  if (text.charCodeAt(j) !== 34) return null;
  let k = j + 1;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 92) k++;
    else if (c === 34) break;
  }
  return k < text.length ? text.slice(at + 1, k + 1) : null;
}

export function count(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** UTF-8 text as the latin1 string of its bytes (how the tap reads the stream). */
export function latin1(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export function parseData(line: string): Record<string, unknown> | null {
  const colon = line.indexOf('data:');
  if (colon === -1) return null;
  try {
    // The one place the tap needs characters: the usage line, once or twice a stream.
    const v: unknown = JSON.parse(Buffer.from(line.slice(colon + 5), 'latin1').toString('utf8'));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
