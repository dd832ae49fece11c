// A Responses API event stream from an upstream → hub events (upstream side). Output text parts and tool
// calls stream as they come; a reasoning item is passed on when it is done, because its
// encrypted_content (which the hub's reasoning-start carries) arrives only with output_item.done.
import { noteServedTier } from '../../core/usage.ts';
import type { Frame } from '../../spec/framing.ts';
import { isObject, type JsonObject } from '../../core/json.ts';
import type { UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import { finishOf, reasoningPartOf } from './decode-reply.ts';
import { readResponsesToolCalls, usageFromResponses } from './usage.ts';

export class ResponsesStreamDecoder implements UpstreamStreamDecoder {
  #next = 0;
  /** Hub index of the text part or tool call open now, or -1. */
  #open = -1;
  #openKind: 'text' | 'tool' | null = null;
  #sawToolCall = false;
  #done = false;
  #started = false;

  push(ev: Frame): HubEvent[] {
    if (this.#done) return [];
    let data: unknown;
    try {
      data = JSON.parse(ev.data);
    } catch {
      return [];
    }
    if (!isObject(data)) return [];
    const out: HubEvent[] = [];
    const type = typeof data.type === 'string' ? data.type : ev.event;
    switch (type) {
      case 'response.created':
        this.#start(
          out,
          isObject(data.response) && typeof data.response.id === 'string' ? data.response.id : undefined,
        );
        break;
      case 'response.content_part.added':
        this.#start(out);
        this.#close(out);
        this.#open = this.#next++;
        this.#openKind = 'text';
        out.push({ type: 'text-start', index: this.#open });
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (this.#openKind === 'text' && typeof data.delta === 'string')
          out.push({ type: 'text-delta', index: this.#open, text: data.delta });
        break;
      case 'response.content_part.done':
        if (this.#openKind === 'text') this.#close(out);
        break;
      case 'response.output_item.added':
        this.#itemAdded(data.item, out);
        break;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        if (this.#openKind === 'tool' && typeof data.delta === 'string')
          out.push({ type: 'tool-call-delta', index: this.#open, input: data.delta });
        break;
      case 'response.output_item.done':
        this.#itemDone(data.item, out);
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.#terminal(isObject(data.response) ? data.response : {}, out);
        break;
      case 'error':
        this.#done = true;
        out.push({
          type: 'error',
          status: data.code === 'rate_limit_exceeded' ? 429 : 500,
          errorType: 'server_error',
          message: typeof data.message === 'string' ? data.message : 'The upstream stream failed.',
          code: typeof data.code === 'string' ? data.code : undefined,
          from: 'responses',
        });
        break;
    }
    return out;
  }

  end(): HubEvent[] {
    if (this.#done) return [];
    this.#done = true;
    return [
      {
        type: 'error',
        status: 502,
        errorType: 'server_error',
        message: 'The upstream stream ended before the response was complete.',
        from: 'responses',
      },
    ];
  }

  #start(out: HubEvent[], id?: string): void {
    if (this.#started) return;
    this.#started = true;
    out.push(id === undefined ? { type: 'start' } : { type: 'start', id });
  }

  #close(out: HubEvent[]): void {
    if (this.#openKind === 'text') out.push({ type: 'text-end', index: this.#open });
    else if (this.#openKind === 'tool') out.push({ type: 'tool-call-end', index: this.#open });
    this.#openKind = null;
  }

  #itemAdded(item: unknown, out: HubEvent[]): void {
    if (!isObject(item) || (item.type !== 'function_call' && item.type !== 'custom_tool_call')) return;
    this.#start(out);
    this.#close(out);
    this.#sawToolCall = true;
    this.#open = this.#next++;
    this.#openKind = 'tool';
    out.push({
      type: 'tool-call-start',
      index: this.#open,
      id: String(item.call_id),
      name: String(item.name),
      kind: item.type === 'custom_tool_call' ? 'custom' : 'function',
    });
  }

  #itemDone(item: unknown, out: HubEvent[]): void {
    if (!isObject(item)) return;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      if (this.#openKind === 'tool') this.#close(out);
      return;
    }
    if (item.type !== 'reasoning') return;
    this.#start(out);
    this.#close(out);
    const part = reasoningPartOf(item as JsonObject);
    if (part.type !== 'reasoning') return;
    const index = this.#next++;
    out.push({
      type: 'reasoning-start',
      index,
      ...(part.id === undefined ? {} : { id: part.id }),
      ...(part.encrypted === undefined ? {} : { encrypted: part.encrypted }),
    });
    if (part.text !== '') out.push({ type: 'reasoning-delta', index, text: part.text });
    out.push({ type: 'reasoning-end', index });
  }

  #terminal(response: JsonObject, out: HubEvent[]): void {
    this.#start(out);
    this.#close(out);
    this.#done = true;
    if (response.status === 'failed') {
      const err = isObject(response.error) ? response.error : {};
      out.push({
        type: 'error',
        status: err.code === 'rate_limit_exceeded' ? 429 : 500,
        errorType: 'server_error',
        message: typeof err.message === 'string' ? err.message : 'The upstream failed the response.',
        code: typeof err.code === 'string' ? err.code : undefined,
        from: 'responses',
      });
      return;
    }
    const usage = usageFromResponses(response.usage);
    if (usage !== undefined) {
      readResponsesToolCalls(response, usage);
      noteServedTier(usage, response.service_tier);
      out.push({ type: 'usage', usage });
    }
    out.push({ type: 'finish', reason: finishOf(response, this.#sawToolCall) });
  }
}
