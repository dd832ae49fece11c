// Hub events → ConverseStream events, each written as one SSE event (`event:` the Converse event type,
// `data:` its JSON) that the route's framing turns into one AWS event-stream message. The events and their
// order are ConverseStream's: messageStart; per content block a contentBlockStart (tool uses only: text
// and reasoning open with their first delta), contentBlockDelta events and a contentBlockStop, the block
// indexes counting from 0; messageStop with the stop reason; then metadata with the usage and latency.
import type { ClientReplyContext, ClientStreamEncoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { FinishReason, HubUsage } from '../../spec/form.ts';
import { converseStopReason } from './stop-reasons.ts';
import { converseUsage } from './usage.ts';

/** One ConverseStream event as the SSE text the framing reads. */
export function converseEvent(type: string, payload: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

const NO_USAGE: HubUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export class ConverseStreamEncoder implements ClientStreamEncoder {
  readonly #latencyMs: () => number;
  /** Converse's index of the open block; the hub's index maps to it one to one, in order. */
  #block = -1;
  #usage: HubUsage = NO_USAGE;
  #finish: FinishReason | null = null;
  #ended = false;

  constructor(ctx: ClientReplyContext) {
    this.#latencyMs = ctx.latencyMs ?? (() => 0);
  }

  push(ev: HubEvent): string {
    if (this.#ended) return '';
    switch (ev.type) {
      case 'start':
        return converseEvent('messageStart', { role: 'assistant' });
      case 'text-start':
      case 'reasoning-start': {
        this.#block++;
        if (ev.type === 'reasoning-start' && ev.redacted !== undefined)
          return this.#delta({ reasoningContent: { redactedContent: ev.redacted } });
        return '';
      }
      case 'text-delta':
        return ev.text === '' ? '' : this.#delta({ text: ev.text });
      case 'reasoning-delta':
        return ev.text === '' ? '' : this.#delta({ reasoningContent: { text: ev.text } });
      case 'reasoning-signature':
        return this.#delta({ reasoningContent: { signature: ev.signature } });
      case 'tool-call-start':
        this.#block++;
        return converseEvent('contentBlockStart', {
          contentBlockIndex: this.#block,
          start: { toolUse: { toolUseId: ev.id, name: ev.name } },
        });
      case 'tool-call-delta':
        return ev.input === '' ? '' : this.#delta({ toolUse: { input: ev.input } });
      case 'text-end':
      case 'reasoning-end':
      case 'tool-call-end':
        return converseEvent('contentBlockStop', { contentBlockIndex: this.#block });
      case 'usage':
        this.#usage = ev.usage;
        return '';
      case 'finish':
        this.#finish = ev.reason;
        this.#ended = true;
        return (
          converseEvent('messageStop', { stopReason: converseStopReason(ev.reason) }) +
          converseEvent('metadata', { usage: converseUsage(this.#usage), metrics: { latencyMs: this.#latencyMs() } })
        );
      case 'error':
        // The route's framing writes an error as an exception message; no event stands for it here.
        this.#ended = true;
        return '';
    }
  }

  /** The stop reason the stream ended with, once it has. */
  get finish(): FinishReason | null {
    return this.#finish;
  }

  #delta(delta: Record<string, unknown>): string {
    return converseEvent('contentBlockDelta', { contentBlockIndex: this.#block, delta });
  }
}
