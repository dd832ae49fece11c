// Hub events → an Anthropic message stream for a /v1/messages caller. Blocks arrive one at a time
// (events.ts), so each maps to one content block, numbered 0,1,2… in order. message_start shows the
// prompt estimate (peers show 0); message_delta the billed usage the relay passes before `finish`.
import { encodeSse } from '../../core/sse.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ClientReplyContext, ClientStreamEncoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import { emptyUsage, type Usage } from '../../core/usage.ts';
import { carrierOf, StreamedReasoning } from '../../spec/reasoning-carrier.ts';
import { shapeMessagesError } from './errors.ts';
import { newMessageId, toAnthropicToolId } from './ids.ts';
import { HUB_TO_STOP_REASON } from './stop-reasons.ts';
import { deltaUsageToAnthropic, usageToAnthropic } from './usage.ts';

export class MessagesStreamEncoder implements ClientStreamEncoder {
  readonly #id = newMessageId();
  readonly #ctx: ClientReplyContext;
  /** The open block's index on the wire, or -1. */
  #open = -1;
  #next = 0;
  #usage: Usage = emptyUsage();
  /** Reasoning of a provider other than Anthropic, gathered until its block ends; null when Anthropic answers. */
  readonly #foreign: StreamedReasoning | null;

  constructor(ctx: ClientReplyContext) {
    this.#ctx = ctx;
    this.#foreign = ctx.origin === undefined || ctx.origin === 'messages' ? null : new StreamedReasoning(ctx.origin);
  }

  push(ev: HubEvent): string {
    switch (ev.type) {
      case 'text-delta':
        if (this.#open < 0 || ev.text.length === 0) return '';
        return this.#delta(
          ev.json === undefined
            ? JSON.stringify({ type: 'text_delta', text: ev.text })
            : `{"type":"text_delta","text":${ev.json}}`,
        );
      case 'start':
        return this.#event('message_start', {
          message: {
            id: this.#id,
            type: 'message',
            role: 'assistant',
            model: this.#ctx.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            stop_details: null,
            container: null,
            usage: usageToAnthropic({
              inputTokens: Math.max(1, Math.round(this.#ctx.promptEstimate())),
              outputTokens: 1,
              cacheReadTokens: 0,
              cacheWriteTokens: 0,
            }),
          },
        });
      case 'text-start':
        return this.#blockStart({ type: 'text', text: '', citations: null });
      case 'reasoning-start':
        this.#foreign?.start(ev);
        return this.#blockStart(
          ev.redacted !== undefined && this.#foreign === null
            ? { type: 'redacted_thinking', data: ev.redacted }
            : { type: 'thinking', thinking: '', signature: '' },
        );
      case 'reasoning-delta':
        this.#foreign?.text(ev.text);
        return this.#open < 0 ? '' : this.#delta(JSON.stringify({ type: 'thinking_delta', thinking: ev.text }));
      case 'reasoning-signature':
        if (this.#foreign !== null) {
          this.#foreign.signature(ev.signature);
          return '';
        }
        return this.#open < 0 ? '' : this.#delta(JSON.stringify({ type: 'signature_delta', signature: ev.signature }));
      case 'reasoning-end': {
        // Another provider's opaque reasoning: its token is the block's signature, once the block is whole.
        const part = this.#foreign?.end() ?? null;
        const token = part === null ? undefined : carrierOf(part);
        const signed =
          token === undefined || this.#open < 0
            ? ''
            : this.#delta(JSON.stringify({ type: 'signature_delta', signature: token }));
        return signed + this.#blockStop();
      }
      case 'tool-call-start':
        return this.#blockStart({
          type: 'tool_use',
          id: toAnthropicToolId(ev.id),
          name: ev.name,
          input: {},
          caller: { type: 'direct' },
        });
      case 'tool-call-delta':
        return this.#open < 0 ? '' : this.#delta(JSON.stringify({ type: 'input_json_delta', partial_json: ev.input }));
      case 'text-end':
      case 'tool-call-end':
        return this.#blockStop();
      case 'usage':
        this.#usage = ev.usage;
        return '';
      case 'finish': {
        const stopReason = HUB_TO_STOP_REASON[ev.reason];
        const stopSequence = stopReason === 'stop_sequence' ? (ev.stopSequence ?? null) : null;
        return (
          this.#blockStop() +
          this.#event('message_delta', {
            delta: { stop_reason: stopReason, stop_sequence: stopSequence, stop_details: null, container: null },
            usage: deltaUsageToAnthropic(this.#usage),
          }) +
          this.#event('message_stop', {})
        );
      }
      case 'error': {
        const shaped = shapeMessagesError({
          from: ev.from ?? 'chat',
          status: ev.status,
          message: ev.message,
          type: ev.errorType,
          code: ev.code,
          param: ev.param,
        });
        return this.#event('error', { error: { type: shaped.type, message: shaped.message } });
      }
    }
  }

  #blockStart(block: JsonObject): string {
    const out = this.#blockStop();
    this.#open = this.#next++;
    return out + this.#event('content_block_start', { index: this.#open, content_block: block });
  }

  #blockStop(): string {
    if (this.#open < 0) return '';
    const index = this.#open;
    this.#open = -1;
    return this.#event('content_block_stop', { index });
  }

  /** The event of every streamed token: written out directly rather than spread into a new object. */
  #delta(deltaJson: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.#open},"delta":${deltaJson}}\n\n`;
  }

  #event(type: string, body: JsonObject): string {
    return encodeSse(type, JSON.stringify({ type, ...body }));
  }
}
