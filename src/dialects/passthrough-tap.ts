// The same-dialect stream path: forwards upstream SSE text line by line, rewriting the model name,
// reading usage from the few events that carry it, and (OpenAI) dropping the usage chunk the gateway
// asked for on the caller's behalf. Events are never re-encoded; lines are only split and joined.
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { patchFirstModel } from './json-model-patch.ts';
import { readAnthropicUsage, readOpenAIUsage } from './usage-readers.ts';
import { isObject } from './request-facts.ts';

export class PassthroughStreamTap {
  readonly usage: Usage = emptyUsage();
  /** True once the upstream reported usage itself (otherwise the delivered-chunk count is used). */
  sawUsage = false;
  /** Content-bearing events forwarded: the documented fallback count of output tokens for a cut stream. */
  deltaEvents = 0;
  /** The stream reached its normal end ([DONE] or message_stop). */
  finished = false;
  #dialect: Dialect;
  #modelJson: string;
  #rewrite: boolean;
  #stripUsageChunk: boolean;
  #utf8 = new TextDecoder('utf-8');
  #carry = '';
  #dropBlank = false;

  constructor(opts: { dialect: Dialect; clientModel: string; upstreamModel: string; stripUsageChunk: boolean }) {
    this.#dialect = opts.dialect;
    this.#modelJson = JSON.stringify(opts.clientModel);
    this.#rewrite = opts.clientModel !== opts.upstreamModel;
    this.#stripUsageChunk = opts.stripUsageChunk;
  }

  /** Text to forward for this chunk of upstream bytes (possibly ''). */
  push(chunk: Uint8Array): string {
    const text = this.#carry + this.#utf8.decode(chunk, { stream: true });
    const lastNl = text.lastIndexOf('\n');
    if (lastNl === -1) {
      this.#carry = text;
      return '';
    }
    this.#carry = text.slice(lastNl + 1);
    return this.#lines(text.slice(0, lastNl + 1));
  }

  /** Whatever is left at end of input. */
  end(): string {
    const rest = this.#carry + this.#utf8.decode();
    this.#carry = '';
    return rest ? this.#lines(rest) : '';
  }

  #lines(block: string): string {
    // Fast path: most chunks need no change beyond the model name and carry no usage.
    let out = '';
    let start = 0;
    while (start < block.length) {
      let nl = block.indexOf('\n', start);
      if (nl === -1) nl = block.length - 1;
      const line = block.slice(start, nl + 1);
      start = nl + 1;
      out += this.#line(line);
    }
    return out;
  }

  #line(line: string): string {
    if (line.length <= 2 && (line === '\n' || line === '\r\n')) {
      if (this.#dropBlank) {
        this.#dropBlank = false;
        return '';
      }
      return line;
    }
    if (!line.startsWith('data:')) return line;
    if (this.#dialect === 'openai') return this.#openaiData(line);
    return this.#anthropicData(line);
  }

  #openaiData(line: string): string {
    if (line.startsWith('data: [DONE]')) {
      this.finished = true;
      return line;
    }
    const usageAt = line.indexOf('"usage":{');
    if (usageAt !== -1) {
      const parsed = parseData(line);
      if (parsed && readOpenAIUsage(parsed.usage, this.usage)) {
        this.sawUsage = true;
        if (this.#stripUsageChunk && Array.isArray(parsed.choices) && parsed.choices.length === 0) {
          this.#dropBlank = true;
          return '';
        }
      }
    } else {
      this.deltaEvents++;
    }
    return this.#rewrite ? patchFirstModel(line, this.#modelJson) : line;
  }

  #anthropicData(line: string): string {
    if (line.includes('"content_block_delta"')) {
      this.deltaEvents++;
      return line;
    }
    if (line.includes('"message_start"')) {
      const parsed = parseData(line);
      if (parsed && isObject(parsed.message) && readAnthropicUsage(parsed.message.usage, this.usage)) this.sawUsage = true;
      return this.#rewrite ? patchFirstModel(line, this.#modelJson) : line;
    }
    if (line.includes('"message_delta"')) {
      const parsed = parseData(line);
      if (parsed && readAnthropicUsage(parsed.usage, this.usage)) this.sawUsage = true;
      return line;
    }
    if (line.includes('"message_stop"')) this.finished = true;
    return line;
  }
}

function parseData(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line.slice(5));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
