// A Gemini upstream's streamGenerateContent SSE (`?alt=sse`) → hub events. Each chunk is a whole
// GenerateContentResponse holding a piece of the reply: text parts continue the open text block,
// thought parts the open reasoning block, and each functionCall part is one whole tool call. Usage
// comes cumulative in any chunk; the chunk with a finishReason ends the reply (Gemini sends no
// terminator event). One per request.
import { isObject } from '../../core/json.ts';
import type { Frame } from '../../spec/framing.ts';
import type { UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import { geminiErrorStatus } from './errors.ts';
import { hubFinishOf } from './finish-reasons.ts';
import { usageFromGemini } from './usage.ts';

type Json = Record<string, unknown>;

/** Ids for calls Gemini sent without one (the Developer API mostly does). */
export function newGeminiCallId(n: number, seed: string): string {
  return `call_${seed}_${n}`;
}

export class GeminiStreamDecoder implements UpstreamStreamDecoder {
  #started = false;
  #ended = false;
  #index = -1;
  #open: 'text' | 'reasoning' | null = null;
  #calls = 0;
  readonly #seed = Math.random().toString(36).slice(2, 10);

  push(ev: Frame): HubEvent[] {
    if (this.#ended) return [];
    let value: unknown;
    try {
      value = JSON.parse(ev.data);
    } catch {
      return [];
    }
    return isObject(value) ? this.chunk(value) : [];
  }

  end(): HubEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    const out = this.#begin();
    out.push({
      type: 'error',
      status: 502,
      errorType: 'UNAVAILABLE',
      message: 'The upstream stream ended before it was complete.',
    });
    return out;
  }

  /** The hub events of one parsed chunk (a whole reply is one chunk). */
  chunk(c: Json): HubEvent[] {
    const out = this.#begin();
    if (isObject(c.error)) {
      this.#ended = true;
      const status = typeof c.error.code === 'number' ? c.error.code : 500;
      out.push({
        type: 'error',
        status,
        errorType: typeof c.error.status === 'string' ? c.error.status : geminiErrorStatus(status),
        message: typeof c.error.message === 'string' ? c.error.message : 'The upstream failed.',
        from: 'gemini',
      });
      return out;
    }
    const candidate = Array.isArray(c.candidates) && isObject(c.candidates[0]) ? c.candidates[0] : undefined;
    const parts =
      candidate !== undefined && isObject(candidate.content) && Array.isArray(candidate.content.parts)
        ? candidate.content.parts.filter(isObject)
        : [];
    for (const p of parts) this.#part(p, out);
    const usage = usageFromGemini(c.usageMetadata);
    const blocked = candidate === undefined && isObject(c.promptFeedback) && c.promptFeedback.blockReason !== undefined;
    const reason = candidate?.finishReason;
    if (reason !== undefined || blocked) {
      this.#close(out);
      if (usage !== undefined) out.push({ type: 'usage', usage });
      out.push({ type: 'finish', reason: blocked ? 'content-filter' : hubFinishOf(reason, this.#calls > 0) });
      this.#ended = true;
    } else if (usage !== undefined) {
      out.push({ type: 'usage', usage, partial: true });
    }
    return out;
  }

  #begin(): HubEvent[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: 'start' }];
  }

  #part(p: Json, out: HubEvent[]): void {
    const signature = typeof p.thoughtSignature === 'string' ? p.thoughtSignature : undefined;
    if (isObject(p.functionCall)) {
      this.#close(out);
      const index = ++this.#index;
      const id = typeof p.functionCall.id === 'string' ? p.functionCall.id : newGeminiCallId(this.#calls, this.#seed);
      this.#calls++;
      const start: HubEvent = {
        type: 'tool-call-start',
        index,
        id,
        name: typeof p.functionCall.name === 'string' ? p.functionCall.name : '',
      };
      // The hub keeps it for callers whose dialect has no place beside the call (spec/call-signatures.ts).
      if (signature !== undefined) start.signature = signature;
      out.push(
        start,
        { type: 'tool-call-delta', index, input: JSON.stringify(p.functionCall.args ?? {}) },
        { type: 'tool-call-end', index },
      );
      return;
    }
    if (typeof p.text !== 'string') return;
    const kind = p.thought === true ? 'reasoning' : 'text';
    if (this.#open !== kind) {
      this.#close(out);
      this.#open = kind;
      out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', index: ++this.#index });
    }
    if (p.text !== '')
      out.push(
        kind === 'text'
          ? { type: 'text-delta', index: this.#index, text: p.text }
          : { type: 'reasoning-delta', index: this.#index, text: p.text },
      );
    if (kind === 'reasoning' && signature !== undefined)
      out.push({ type: 'reasoning-signature', index: this.#index, signature });
  }

  #close(out: HubEvent[]): void {
    if (this.#open === null) return;
    out.push({ type: this.#open === 'text' ? 'text-end' : 'reasoning-end', index: this.#index });
    this.#open = null;
  }
}
