// Anthropic message stream events from the upstream → hub events. Anthropic's blocks already come one
// at a time, each with its index, so they map one to one. In JSON mode the forced tool's input is the
// reply's text: text before it is held until the stream shows whether that tool is called, and a wrapped
// non-object value is unwrapped as it streams (as the whole reply, decode-reply.ts). One per request.
import type { Frame } from '../../spec/framing.ts';
import { emptyUsage } from '../../core/usage.ts';
import { isObject, str, tryParseJson, type JsonObject } from '../../core/json.ts';
import type { UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { FinishReason, HubUsage } from '../../spec/form.ts';
import { readUpstreamError } from '../../spec/upstream-error.ts';
import type { MessagesReplyState } from './encode-request.ts';
import { ANTHROPIC_ERROR_STATUS } from './errors.ts';
import { plainTextDelta } from './plain-text-delta.ts';
import { finishOfStopReason } from './stop-reasons.ts';
import { jsonTextOfToolInput, StreamedJsonUnwrap, type JsonMode } from './structured-output.ts';
import { readAnthropicUsage } from './usage.ts';

type BlockKind = 'text' | 'reasoning' | 'tool' | 'json' | 'held' | 'other';

interface OpenBlock {
  kind: BlockKind;
  /** Kind `json` with a wrapped value. */
  unwrap: StreamedJsonUnwrap | null;
  stopped: boolean;
}

const NONE: HubEvent[] = [];

export class MessagesStreamDecoder implements UpstreamStreamDecoder {
  readonly #jsonMode: JsonMode | null;
  readonly #blocks = new Map<number, OpenBlock>();
  #started = false;
  #ended = false;
  #stopReason: unknown = null;
  #stopSequence: string | undefined;
  readonly #usage: HubUsage = emptyUsage();
  #calls = 0;
  /** JSON mode: text seen before the forced tool, sent at the end only if the tool never came. */
  #heldText = '';
  #jsonSeen = false;
  #lastIndex = -1;

  constructor(state: unknown) {
    this.#jsonMode = (state as MessagesReplyState | undefined)?.jsonMode ?? null;
  }

  push(ev: Frame): HubEvent[] {
    if (this.#ended || ev.data.length === 0) return NONE;
    const plain = this.#jsonMode === null ? plainTextDelta(ev.data) : null;
    if (plain !== null) {
      // The common token event, read without parsing it.
      const block = this.#blocks.get(plain.index);
      if (block === undefined || block.kind !== 'text' || block.stopped || plain.quoted.length === 2) return NONE;
      return [{ type: 'text-delta', index: plain.index, text: plain.quoted.slice(1, -1), json: plain.quoted }];
    }
    const data = tryParseJson(ev.data);
    if (!isObject(data)) return this.#fail({ type: 'api_error', message: 'upstream sent a malformed stream event' });
    const out: HubEvent[] = [];
    switch (str(data.type) ?? ev.event) {
      case 'message_start': {
        this.#start(out);
        const usage = isObject(data.message) ? data.message.usage : undefined;
        // message_start's output count is a placeholder (1): the bill waits for message_delta's.
        if (readAnthropicUsage(usage, this.#usage))
          out.push({ type: 'usage', usage: { ...this.#usage }, partial: true });
        return out;
      }
      case 'content_block_start':
        this.#blockStart(data, out);
        return out;
      case 'content_block_delta':
        this.#blockDelta(data, out);
        return out;
      case 'message_delta':
        if (isObject(data.delta) && str(data.delta.stop_reason) !== undefined) {
          this.#stopReason = data.delta.stop_reason;
          this.#stopSequence = str(data.delta.stop_sequence);
        }
        if (readAnthropicUsage(data.usage, this.#usage)) {
          const final = isObject(data.usage) && typeof data.usage.output_tokens === 'number';
          out.push(
            final
              ? { type: 'usage', usage: { ...this.#usage } }
              : { type: 'usage', usage: { ...this.#usage }, partial: true },
          );
        }
        return out;
      case 'content_block_stop': {
        const block = typeof data.index === 'number' ? this.#blocks.get(data.index) : undefined;
        if (block !== undefined) this.#stop(data.index as number, block, out);
        return out;
      }
      case 'message_stop':
        this.#finish(out);
        return out;
      case 'error':
        return this.#fail(isObject(data.error) ? data.error : {});
      default:
        // ping and event types newer than this code carry nothing for the client.
        return NONE;
    }
  }

  end(): HubEvent[] {
    if (this.#ended) return NONE;
    return this.#fail({ type: 'api_error', message: 'upstream stream ended before message_stop' });
  }

  #start(out: HubEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({ type: 'start' });
  }

  #blockStart(data: JsonObject, out: HubEvent[]): void {
    const index = typeof data.index === 'number' ? data.index : this.#blocks.size;
    if (index > this.#lastIndex) this.#lastIndex = index;
    const block = isObject(data.content_block) ? data.content_block : {};
    this.#start(out);
    const open: OpenBlock = { kind: 'other', unwrap: null, stopped: false };
    this.#blocks.set(index, open);
    if (block.type === 'text') {
      open.kind = this.#jsonMode === null ? 'text' : 'held';
      if (open.kind === 'text') out.push({ type: 'text-start', index });
      this.#text(index, open, str(block.text) ?? '', out);
    } else if (block.type === 'thinking') {
      open.kind = 'reasoning';
      out.push({ type: 'reasoning-start', index });
      const text = str(block.thinking) ?? '';
      if (text.length > 0) out.push({ type: 'reasoning-delta', index, text });
      const signature = str(block.signature) ?? '';
      if (signature.length > 0) out.push({ type: 'reasoning-signature', index, signature });
    } else if (block.type === 'redacted_thinking') {
      open.kind = 'reasoning';
      out.push({ type: 'reasoning-start', index, redacted: str(block.data) ?? '' });
    } else if (block.type === 'tool_use') {
      const name = str(block.name) ?? '';
      const input = isObject(block.input) ? block.input : {};
      // Real upstreams start with `{}` and stream the input; a proxy that sends it whole here is honoured.
      const whole = Object.keys(input).length > 0;
      const mode = this.#jsonMode;
      if (mode !== null && name === mode.toolName) {
        // The JSON reply replaces any text around it, as in the whole reply.
        this.#jsonSeen = true;
        this.#heldText = '';
        open.kind = 'json';
        if (mode.wrapKey !== null && !whole) open.unwrap = new StreamedJsonUnwrap(mode.wrapKey);
        out.push({ type: 'text-start', index });
        if (whole) out.push({ type: 'text-delta', index, text: jsonTextOfToolInput(input, mode) });
        return;
      }
      open.kind = 'tool';
      this.#calls++;
      out.push({ type: 'tool-call-start', index, id: str(block.id) ?? '', name });
      if (whole) out.push({ type: 'tool-call-delta', index, input: JSON.stringify(input) });
    }
  }

  #blockDelta(data: JsonObject, out: HubEvent[]): void {
    const index = data.index;
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined;
    if (block === undefined || block.stopped) return;
    const delta = isObject(data.delta) ? data.delta : {};
    switch (delta.type) {
      case 'text_delta':
        this.#text(index as number, block, str(delta.text) ?? '', out);
        return;
      case 'input_json_delta': {
        const part = str(delta.partial_json) ?? '';
        if (part.length === 0) return;
        if (block.kind === 'json')
          this.#jsonText(index as number, block.unwrap === null ? part : block.unwrap.push(part), out);
        else if (block.kind === 'tool') out.push({ type: 'tool-call-delta', index: index as number, input: part });
        return;
      }
      case 'thinking_delta': {
        const text = str(delta.thinking) ?? '';
        if (text.length > 0 && block.kind === 'reasoning')
          out.push({ type: 'reasoning-delta', index: index as number, text });
        return;
      }
      case 'signature_delta': {
        const signature = str(delta.signature) ?? '';
        if (signature.length > 0 && block.kind === 'reasoning')
          out.push({ type: 'reasoning-signature', index: index as number, signature });
        return;
      }
    }
  }

  #text(index: number, block: OpenBlock, text: string, out: HubEvent[]): void {
    if (text.length === 0) return;
    if (block.kind === 'text') out.push({ type: 'text-delta', index, text });
    else if (block.kind === 'held' && !this.#jsonSeen) this.#heldText += text;
  }

  #jsonText(index: number, text: string, out: HubEvent[]): void {
    if (text.length > 0) out.push({ type: 'text-delta', index, text });
  }

  /** A block's end: an unwrapped JSON value gives its last part first. */
  #stop(index: number, block: OpenBlock, out: HubEvent[]): void {
    if (block.stopped) return;
    block.stopped = true;
    switch (block.kind) {
      case 'text':
        out.push({ type: 'text-end', index });
        return;
      case 'reasoning':
        out.push({ type: 'reasoning-end', index });
        return;
      case 'tool':
        out.push({ type: 'tool-call-end', index });
        return;
      case 'json':
        if (block.unwrap !== null) this.#jsonText(index, block.unwrap.end(), out);
        out.push({ type: 'text-end', index });
        return;
    }
  }

  #finish(out: HubEvent[]): void {
    this.#start(out);
    for (const [index, block] of this.#blocks) this.#stop(index, block, out);
    if (!this.#jsonSeen && this.#heldText.length > 0) {
      const index = ++this.#lastIndex;
      out.push(
        { type: 'text-start', index },
        { type: 'text-delta', index, text: this.#heldText },
        { type: 'text-end', index },
      );
    }
    this.#heldText = '';
    let reason: FinishReason = finishOfStopReason(this.#stopReason);
    // The forced JSON tool is not a tool call to the client: its input was the content.
    if (reason === 'tool-calls' && this.#calls === 0) reason = 'stop';
    this.#ended = true;
    out.push(
      reason === 'stop-sequence' && this.#stopSequence !== undefined
        ? { type: 'finish', reason, stopSequence: this.#stopSequence }
        : { type: 'finish', reason },
    );
  }

  #fail(error: JsonObject): HubEvent[] {
    this.#ended = true;
    const errorType = str(error.type) ?? 'api_error';
    const status = ANTHROPIC_ERROR_STATUS[errorType] ?? 500;
    // Read as an error body is, so the same caps apply to an in-stream error's text.
    const read = readUpstreamError('messages', status, JSON.stringify({ type: 'error', error }));
    return [
      {
        type: 'error',
        status,
        errorType: read.type ?? errorType,
        message: read.message ?? `upstream returned HTTP ${status}`,
        from: 'messages',
      },
    ];
  }
}
