// One translated stream: an upstream side's decoder joined to a client side's encoder through hub events.
// It owns what every pair needs alike, once: whether and how the stream ended, and the usage to bill (the
// upstream's own figures, or, where it gave none or its output count is not final, what was delivered at
// about four characters a token, as every route bills a stream cut short).
import type { Frame } from '../../spec/framing.ts';
import { estimatedUsage, outputTokensForChars, type Usage } from '../../core/usage.ts';
import type { ClientStreamEncoder, UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { HubUsage } from '../../spec/form.ts';

export interface StreamTranslatorOptions {
  decoder: UpstreamStreamDecoder;
  encoder: ClientStreamEncoder;
  /** Prompt tokens counted before the call: the bill's input when the upstream reports none. */
  promptEstimate: () => number;
}

export class HubStreamTranslator {
  readonly #decoder: UpstreamStreamDecoder;
  readonly #encoder: ClientStreamEncoder;
  readonly #promptEstimate: () => number;
  #usage: HubUsage | null = null;
  #partial = false;
  /** Characters of output delivered (text, reasoning, tool input). */
  #outputChars = 0;
  #finished = false;
  #failed = false;

  constructor(opts: StreamTranslatorOptions) {
    this.#decoder = opts.decoder;
    this.#encoder = opts.encoder;
    this.#promptEstimate = opts.promptEstimate;
  }

  /** Client SSE text for one upstream frame ('' when nothing is to be sent yet). */
  push(ev: Frame): string {
    if (this.#finished) return '';
    const events = this.#decoder.push(ev);
    // Most upstream events are one token: one hub event.
    if (events.length === 1) return this.#emit(events[0]);
    let out = '';
    for (const e of events) out += this.#emit(e);
    return out;
  }

  /** The upstream body ended: the decoder's ending (an error event when the stream stopped early). */
  end(): string {
    if (this.#finished) return '';
    let out = '';
    for (const e of this.#decoder.end()) out += this.#emit(e);
    return out;
  }

  /** What to bill so far (final once `finished`). */
  get usage(): Usage {
    const u = this.#usage;
    if (u === null) {
      return estimatedUsage(this.#promptEstimate(), this.#outputChars);
    }
    const copy = {
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: u.cacheReadTokens,
      cacheWriteTokens: u.cacheWriteTokens,
    };
    if (this.#partial) copy.outputTokens = Math.max(copy.outputTokens, outputTokensForChars(this.#outputChars));
    return copy;
  }

  /** The client encoder's whole final object (Responses API), for the gateway to store. */
  final(): string | null {
    return this.#encoder.final?.() ?? null;
  }

  /**
   * Ends the stream with the gateway's own failure (a stall, a deadline), written by the client encoder
   * as its dialect's failed ending ('' when the stream has already ended).
   */
  failWith(ev: Extract<HubEvent, { type: 'error' }>): string {
    if (this.#finished) return '';
    this.#finished = true;
    this.#failed = true;
    return this.#encoder.push(ev);
  }

  /** True once the stream reached its end, normal or an error. */
  get finished(): boolean {
    return this.#finished;
  }

  /** True when it ended with an error event instead of its normal end. */
  get failed(): boolean {
    return this.#failed;
  }

  #emit(ev: HubEvent): string {
    if (this.#finished) return '';
    switch (ev.type) {
      case 'text-delta':
      case 'reasoning-delta':
        this.#outputChars += ev.text.length;
        break;
      case 'tool-call-delta':
        this.#outputChars += ev.input.length;
        break;
      case 'usage':
        this.#usage = ev.usage;
        this.#partial = ev.partial === true;
        break;
      case 'finish': {
        this.#finished = true;
        const usage: HubUsage = this.usage;
        if (this.#usage?.reasoningTokens !== undefined) usage.reasoningTokens = this.#usage.reasoningTokens;
        return this.#encoder.push({ type: 'usage', usage }) + this.#encoder.push(ev);
      }
      case 'error':
        this.#finished = true;
        this.#failed = true;
        break;
    }
    return this.#encoder.push(ev);
  }
}
