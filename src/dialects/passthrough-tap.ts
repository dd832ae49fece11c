// The same-dialect stream path: forwards upstream SSE text, rewriting the model name, reading usage from
// the few events that carry it, and (OpenAI) dropping the usage chunk the gateway asked for on the
// caller's behalf. Work is done per chunk with native string search, never per line in JS, and events
// are never re-encoded: this runs for every streamed token (issue 6 budget: ≤ 9 µs CPU per event).
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { readAnthropicUsage, readOpenAIUsage } from './usage-readers.ts';
import { isObject } from './request-facts.ts';

export class PassthroughStreamTap {
  readonly usage: Usage = emptyUsage();
  /** True once the upstream reported usage itself (otherwise the delivered-event count is used). */
  sawUsage = false;
  /** Content-bearing events forwarded: the documented fallback count of output tokens for a cut stream. */
  deltaEvents = 0;
  /** The stream reached its normal end ([DONE] or message_stop). */
  finished = false;
  #dialect: Dialect;
  #clientModelJson: string;
  #rewrite: boolean;
  /** The upstream's `"model":"…"` text as it first appeared (servers answer with dated names too). */
  #upstreamModelKey: string | null = null;
  #clientModelKey = '';
  #stripUsageChunk: boolean;
  #utf8 = new TextDecoder('utf-8');
  #carry = '';

  constructor(opts: { dialect: Dialect; clientModel: string; upstreamModel: string; stripUsageChunk: boolean }) {
    this.#dialect = opts.dialect;
    this.#clientModelJson = JSON.stringify(opts.clientModel);
    this.#rewrite = opts.clientModel !== opts.upstreamModel;
    this.#stripUsageChunk = opts.stripUsageChunk;
  }

  /** Text to forward for this chunk of upstream bytes (possibly ''). Only whole lines are forwarded. */
  push(chunk: Uint8Array): string {
    const text = this.#carry + this.#utf8.decode(chunk, { stream: true });
    const lastNl = text.lastIndexOf('\n');
    if (lastNl === -1) {
      this.#carry = text;
      return '';
    }
    if (lastNl === text.length - 1) {
      this.#carry = '';
      return this.#block(text);
    }
    this.#carry = text.slice(lastNl + 1);
    return this.#block(text.slice(0, lastNl + 1));
  }

  /** Whatever is left at end of input. */
  end(): string {
    const rest = this.#carry + this.#utf8.decode();
    this.#carry = '';
    return rest ? this.#block(rest) : '';
  }

  #block(block: string): string {
    return this.#dialect === 'openai' ? this.#openai(block) : this.#anthropic(block);
  }

  #openai(block: string): string {
    this.deltaEvents += count(block, '"delta":{"');
    if (!this.finished && block.includes('data: [DONE]')) this.finished = true;
    const usageAt = block.indexOf('"usage":{');
    if (usageAt !== -1) block = this.#openaiUsage(block, usageAt);
    return this.#rewrite ? this.#renameAll(block) : block;
  }

  #openaiUsage(block: string, usageAt: number): string {
    const start = block.lastIndexOf('\n', usageAt) + 1;
    let end = block.indexOf('\n', usageAt);
    if (end === -1) end = block.length;
    const parsed = parseData(block.slice(start, end));
    if (!parsed || !readOpenAIUsage(parsed.usage, this.usage)) return block;
    this.sawUsage = true;
    if (!this.#stripUsageChunk || !Array.isArray(parsed.choices) || parsed.choices.length > 0) return block;
    // Drop the usage event and the blank line that ends it.
    let after = end + 1;
    if (block.charCodeAt(after) === 13) after++;
    if (block.charCodeAt(after) === 10) after++;
    return block.slice(0, start) + block.slice(after);
  }

  #anthropic(block: string): string {
    this.deltaEvents += count(block, '"type":"content_block_delta"');
    if (block.includes('"message_start"')) block = this.#anthropicLine(block, '"message_start"');
    if (block.includes('"message_delta"')) block = this.#anthropicLine(block, '"message_delta"');
    if (!this.finished && block.includes('"message_stop"')) this.finished = true;
    return block;
  }

  /** Reads usage from the data line of a message_start / message_delta event (rewriting message_start's model). */
  #anthropicLine(block: string, marker: string): string {
    const at = block.indexOf(`data: {"type":${marker}`) !== -1 ? block.indexOf(`data: {"type":${marker}`) : block.indexOf(marker);
    const start = block.lastIndexOf('\n', at) + 1;
    let end = block.indexOf('\n', at);
    if (end === -1) end = block.length;
    const line = block.slice(start, end);
    const parsed = parseData(line);
    if (!parsed) return block;
    const usage = marker === '"message_start"' && isObject(parsed.message) ? parsed.message.usage : parsed.usage;
    if (readAnthropicUsage(usage, this.usage)) this.sawUsage = true;
    if (marker !== '"message_start"' || !this.#rewrite) return block;
    return block.slice(0, start) + this.#renameAll(line) + block.slice(end);
  }

  #renameAll(text: string): string {
    if (this.#upstreamModelKey === null) {
      const key = modelKeyIn(text);
      if (key === null) return text;
      this.#upstreamModelKey = key;
      this.#clientModelKey = key.slice(0, key.lastIndexOf('"', key.length - 2)) + this.#clientModelJson;
    }
    return text.includes(this.#upstreamModelKey) ? text.replaceAll(this.#upstreamModelKey, this.#clientModelKey) : text;
  }
}

/** The literal `"model":"value"` text (with whatever whitespace the upstream used), or null. */
function modelKeyIn(text: string): string | null {
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
  return k < text.length ? text.slice(at, k + 1) : null;
}

function count(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

function parseData(line: string): Record<string, unknown> | null {
  const colon = line.indexOf('data:');
  if (colon === -1) return null;
  try {
    const v: unknown = JSON.parse(line.slice(colon + 5));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
