// Bedrock ConverseStream events (one per event-stream message: the frame's event is the message's
// `:event-type`) → hub events. messageStart opens the reply; contentBlockStart opens a tool call (text and
// reasoning blocks open with their first delta); contentBlockDelta carries text, tool input or reasoning
// (text, then a signature or redacted content); contentBlockStop closes the block; messageStop carries the
// stop reason and `metadata` the usage, after it — so `finish` waits for `metadata` or the body's end.
// An exception message (its frame's event ends in `Exception`) ends the stream as an error. One per request.
import { isObject } from '../../core/json.ts';
import type { Frame } from '../../spec/framing.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { FinishReason, HubUsage } from '../../spec/form.ts';
import { bedrockErrorStatus } from './converse-errors.ts';

type Json = Record<string, unknown>;

/** A frame of the event stream: its event type and its JSON payload. */
export type ConverseFrame = Frame;

/** Converse's `stopReason` → the hub's; a tool call's stop is `tool-calls`. */
export function hubFinishOfConverse(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
      return 'stop';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content-filter';
    case 'model_context_window_exceeded':
      return 'context-window';
    default:
      return 'other';
  }
}

/** Converse's `usage` → the hub's: its inputTokens exclude the cache reads and writes it reports apart. */
export function usageFromConverse(u: unknown): HubUsage | undefined {
  if (!isObject(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  return {
    inputTokens: n(u.inputTokens),
    outputTokens: n(u.outputTokens),
    cacheReadTokens: n(u.cacheReadInputTokens),
    cacheWriteTokens: n(u.cacheWriteInputTokens),
  };
}

export class ConverseStreamDecoder {
  #started = false;
  #ended = false;
  /** The hub index of the open block, by Converse's contentBlockIndex. */
  #openBlock: number | undefined;
  #openKind: 'text' | 'reasoning' | 'tool' | null = null;
  #index = -1;
  #finish: { reason: FinishReason; stopSequence?: string } | undefined;

  push(frame: ConverseFrame): HubEvent[] {
    if (this.#ended) return [];
    let value: unknown;
    try {
      value = JSON.parse(frame.data);
    } catch {
      return [];
    }
    const p: Json = isObject(value) ? value : {};
    const type = frame.event ?? '';
    if (type.endsWith('Exception')) return this.#error(type, p);
    return this.event(type, p);
  }

  /** The hub events of one Converse stream event (by its type and parsed payload). */
  event(type: string, p: Json): HubEvent[] {
    const out = this.#begin();
    switch (type) {
      case 'contentBlockStart': {
        const start = isObject(p.start) ? p.start : {};
        if (isObject(start.toolUse)) {
          this.#close(out);
          this.#open('tool', p.contentBlockIndex);
          out.push({
            type: 'tool-call-start',
            index: this.#index,
            id: typeof start.toolUse.toolUseId === 'string' ? start.toolUse.toolUseId : '',
            name: typeof start.toolUse.name === 'string' ? start.toolUse.name : '',
          });
        }
        break;
      }
      case 'contentBlockDelta':
        this.#delta(p, out);
        break;
      case 'contentBlockStop':
        this.#close(out);
        break;
      case 'messageStop':
        this.#close(out);
        this.#finish = { reason: hubFinishOfConverse(p.stopReason) };
        break;
      case 'metadata': {
        const usage = usageFromConverse(p.usage);
        if (usage !== undefined) out.push({ type: 'usage', usage });
        if (this.#finish !== undefined) this.#done(out);
        break;
      }
    }
    return out;
  }

  end(): HubEvent[] {
    if (this.#ended) return [];
    const out = this.#begin();
    if (this.#finish !== undefined) {
      this.#done(out);
      return out;
    }
    this.#ended = true;
    out.push({
      type: 'error',
      status: 502,
      errorType: 'ModelStreamErrorException',
      message: 'The upstream stream ended before it was complete.',
    });
    return out;
  }

  #delta(p: Json, out: HubEvent[]): void {
    const d = isObject(p.delta) ? p.delta : {};
    if (typeof d.text === 'string') {
      if (this.#openKind !== 'text' || this.#openBlock !== p.contentBlockIndex) {
        this.#close(out);
        this.#open('text', p.contentBlockIndex);
        out.push({ type: 'text-start', index: this.#index });
      }
      if (d.text !== '') out.push({ type: 'text-delta', index: this.#index, text: d.text });
    } else if (isObject(d.toolUse)) {
      if (this.#openKind === 'tool' && typeof d.toolUse.input === 'string' && d.toolUse.input !== '')
        out.push({ type: 'tool-call-delta', index: this.#index, input: d.toolUse.input });
    } else if (isObject(d.reasoningContent)) {
      const r = d.reasoningContent;
      if (this.#openKind !== 'reasoning' || this.#openBlock !== p.contentBlockIndex) {
        this.#close(out);
        this.#open('reasoning', p.contentBlockIndex);
        const start: HubEvent = { type: 'reasoning-start', index: this.#index };
        if (typeof r.redactedContent === 'string') start.redacted = r.redactedContent;
        out.push(start);
      }
      if (typeof r.text === 'string' && r.text !== '')
        out.push({ type: 'reasoning-delta', index: this.#index, text: r.text });
      if (typeof r.signature === 'string')
        out.push({ type: 'reasoning-signature', index: this.#index, signature: r.signature });
    }
  }

  #open(kind: 'text' | 'reasoning' | 'tool', block: unknown): void {
    this.#openKind = kind;
    this.#openBlock = typeof block === 'number' ? block : undefined;
    this.#index++;
  }

  #close(out: HubEvent[]): void {
    if (this.#openKind === null) return;
    const type =
      this.#openKind === 'text' ? 'text-end' : this.#openKind === 'reasoning' ? 'reasoning-end' : 'tool-call-end';
    out.push({ type, index: this.#index });
    this.#openKind = null;
    this.#openBlock = undefined;
  }

  #begin(): HubEvent[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: 'start' }];
  }

  #done(out: HubEvent[]): void {
    this.#ended = true;
    out.push({ type: 'finish', reason: this.#finish?.reason ?? 'other' });
  }

  #error(type: string, p: Json): HubEvent[] {
    const out = this.#begin();
    this.#ended = true;
    out.push({
      type: 'error',
      status: bedrockErrorStatus(type),
      errorType: type,
      message: typeof p.message === 'string' ? p.message : 'The upstream failed.',
    });
    return out;
  }
}
