// The Responses API pass-through stream: forwards the upstream's SSE bytes with the model renamed,
// reads usage from the terminal event (`response.completed`, `.incomplete` or `.failed`, whose
// `response.usage` is the whole bill) and keeps that event's response object, which the gateway
// stores for `previous_response_id` and GET /v1/responses/{id}. Searches the latin1 text of whole lines,
// as the chat and messages tap does (../passthrough-tap.ts), and parses only the few lifecycle lines.
import { emptyUsage, noteServedTier, type Usage } from '../../core/usage.ts';
import { isObject } from '../../core/json.ts';
import { readResponsesToolCalls, readResponsesUsage } from './usage.ts';
import { count, latin1, lineAround, modelKeyIn, parseData, type TextMasker } from '../passthrough-tap.ts';
import { SseLineBlocks } from '../sse-line-blocks.ts';

const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'] as const;

export class ResponsesStreamTap {
  readonly usage: Usage = emptyUsage();
  sawUsage = false;
  /** The terminal lifecycle event arrived. */
  finished = false;
  /** The response object of the terminal event (completed or incomplete), as the client got it. */
  finalResponse: string | null = null;
  /** Events forwarded so far (the next sequence number for an event of the gateway's own). */
  events = 0;
  #deltas = 0;
  #clientModelJson: string;
  #rewrite: boolean;
  #modelKey: string | null = null;
  #clientModelKey = '';
  readonly #lines = new SseLineBlocks();
  #last = '';
  #masker: TextMasker | null;

  constructor(opts: { clientModel: string; upstreamModel: string; masker?: TextMasker }) {
    this.#masker = opts.masker ?? null;
    this.#clientModelJson = latin1(JSON.stringify(opts.clientModel));
    this.#rewrite = opts.clientModel !== opts.upstreamModel;
  }

  /** Delta events forwarded: the fallback count of output tokens for a stream cut before its usage. */
  get deltaEvents(): number {
    return this.#deltas;
  }

  /** What to forward for this chunk (empty when nothing is to be sent yet): whole lines only. */
  push(chunk: Uint8Array): Buffer {
    return this.#forward(this.#lines.push(chunk));
  }

  end(): Buffer {
    return this.#forward(this.#lines.end());
  }

  #forward(bytes: Buffer): Buffer {
    if (bytes.length === 0) return bytes;
    const text = bytes.toString('latin1');
    const out = this.#block(text);
    return out === text ? bytes : Buffer.from(out, 'latin1');
  }

  /** The last event forwarded was the upstream's own `error` or `response.failed`: the stream already ends well-formed. */
  endsWithError(): boolean {
    const tail = this.#last.trimEnd();
    const event = tail.slice(tail.lastIndexOf('\n\n') + 1).trimStart();
    return /^event: ?(error|response\.failed)\r?\n/.test(event);
  }

  #block(block: string): string {
    this.#last = block;
    this.events += count(block, 'data:');
    this.#deltas += count(block, '.delta"');
    // Most chunks are delta events: no response object (the model's name, the usage), no error.
    if (!block.includes('"response"') && !block.includes('event: error')) return block;
    if (this.#masker !== null && (block.includes('event: error') || block.includes('response.failed')))
      block = this.#masked(block);
    if (this.#rewrite) block = this.#rename(block);
    for (const type of TERMINAL)
      if (block.includes(`type":"${type}"`) || block.includes(`type": "${type}"`)) this.#terminal(block, type);
    return block;
  }

  #terminal(block: string, type: (typeof TERMINAL)[number]): void {
    let at = block.indexOf(`type":"${type}"`);
    if (at === -1) at = block.indexOf(`type": "${type}"`);
    const [start, end] = lineAround(block, at);
    const parsed = parseData(block.slice(start, end));
    if (parsed === null || !isObject(parsed.response)) return;
    this.finished = true;
    if (readResponsesUsage(parsed.response.usage, this.usage)) this.sawUsage = true;
    readResponsesToolCalls(parsed.response, this.usage);
    noteServedTier(this.usage, parsed.response.service_tier);
    if (type !== 'response.failed') this.finalResponse = JSON.stringify(parsed.response);
  }

  #rename(block: string): string {
    if (this.#modelKey === null) {
      const key = modelKeyIn(block);
      if (key === null) return block;
      this.#modelKey = key;
      this.#clientModelKey = key.slice(0, key.lastIndexOf('"', key.length - 2)) + this.#clientModelJson;
    }
    return block.includes(this.#modelKey) ? block.replaceAll(`"${this.#modelKey}`, `"${this.#clientModelKey}`) : block;
  }

  #masked(block: string): string {
    const text = Buffer.from(block, 'latin1').toString('utf8');
    const masked = this.#masker!.mask(text);
    return masked === text ? block : latin1(masked);
  }
}
