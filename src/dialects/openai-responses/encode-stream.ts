// Hub events → the Responses API event stream (client side): created and in_progress first, each output
// item added / its deltas / done, and one terminal event whose response holds every item and the usage.
// A custom tool the upstream answers as a function call streams JSON arguments, not the free-form
// input: its input is sent whole when the call ends. Typed state per stream, no per-event allocation
// beyond the events themselves.
import type { JsonObject } from '../../core/json.ts';
import type { ClientReplyContext, ClientStreamEncoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { HubUsage, ReasoningPart } from '../../spec/form.ts';
import { unwrapCustomInput } from '../../spec/custom-tool.ts';
import { echoOf, isCustomTool, responsesUsage } from './echo.ts';
import { reasoningItemOf, statusOf } from './encode-reply.ts';
import { ResponsesEventWriter } from './event-writer.ts';
import { customToolCallItem, functionCallItem, messageItem, responseObject, responsesId } from './response-object.ts';

/** The item open now: at most one at a time (events.ts). */
type Open =
  | { kind: 'text'; id: string; at: number; text: string }
  | { kind: 'reasoning'; id: string; at: number; part: ReasoningPart; summaryOpen: boolean }
  | {
      kind: 'tool';
      id: string;
      at: number;
      callId: string;
      name: string;
      input: string;
      custom: 'raw' | 'wrapped' | null;
    };

export class ResponsesStreamEncoder implements ClientStreamEncoder {
  readonly #ctx: ClientReplyContext;
  readonly #w = new ResponsesEventWriter();
  readonly #id = responsesId('resp');
  readonly #echo: JsonObject;
  readonly #output: JsonObject[] = [];
  #open: Open | null = null;
  #usage: HubUsage | null = null;
  #final: string | null = null;
  #started = false;

  constructor(ctx: ClientReplyContext) {
    this.#ctx = ctx;
    this.#echo = echoOf(ctx.request);
  }

  /** The response object the stream ended with (JSON text), once it ended normally. */
  final(): string | null {
    return this.#final;
  }

  /** Events written so far. */
  get sequence(): number {
    return this.#w.count;
  }

  push(ev: HubEvent): string {
    const w = this.#w;
    const open = this.#open;
    switch (ev.type) {
      case 'start':
        return this.#start();
      case 'text-delta':
        if (open?.kind !== 'text') return '';
        open.text += ev.text;
        return w.textDelta(open.id, open.at, ev.text, ev.json);
      case 'tool-call-delta':
        if (open?.kind !== 'tool') return '';
        open.input += ev.input;
        if (open.custom === 'wrapped') return '';
        return open.custom === 'raw'
          ? w.customInputDelta(open.id, open.at, ev.input)
          : w.argumentsDelta(open.id, open.at, ev.input);
      case 'reasoning-delta':
        if (open?.kind !== 'reasoning') return '';
        open.part.text += ev.text;
        if (open.summaryOpen) return w.summaryDelta(open.id, open.at, 0, ev.text);
        open.summaryOpen = true;
        return w.summaryPartAdded(open.id, open.at, 0) + w.summaryDelta(open.id, open.at, 0, ev.text);
      case 'text-start': {
        const id = responsesId('msg');
        const at = this.#output.length;
        this.#open = { kind: 'text', id, at, text: '' };
        return this.#start() + w.itemAdded(at, messageItem(id, '', 'in_progress')) + w.textPartAdded(id, at);
      }
      case 'text-end': {
        if (open?.kind !== 'text') return '';
        this.#open = null;
        const item = messageItem(open.id, open.text, 'completed');
        this.#output.push(item);
        return w.textDone(open.id, open.at, open.text) + w.itemDone(open.at, item);
      }
      case 'reasoning-start': {
        const at = this.#output.length;
        // The upstream's dialect names whose signatures these are; where it is not known, what the block
        // holds says it (an id or encrypted content is OpenAI's, a signature or redacted data Anthropic's).
        const part: ReasoningPart = {
          type: 'reasoning',
          text: '',
          origin: this.#ctx.origin ?? (ev.id !== undefined || ev.encrypted !== undefined ? 'responses' : undefined),
        };
        if (ev.encrypted !== undefined) part.encrypted = ev.encrypted;
        if (ev.redacted !== undefined) part.redacted = ev.redacted;
        const id = ev.id ?? responsesId('rs');
        this.#open = { kind: 'reasoning', id, at, part, summaryOpen: false };
        return this.#start() + w.itemAdded(at, { id, type: 'reasoning', summary: [] });
      }
      case 'reasoning-signature':
        if (open?.kind === 'reasoning') {
          open.part.signature = ev.signature;
          open.part.origin ??= 'messages';
        }
        return '';
      case 'reasoning-end': {
        if (open?.kind !== 'reasoning') return '';
        this.#open = null;
        if (open.part.origin === undefined && open.part.redacted !== undefined) open.part.origin = 'messages';
        const item = reasoningItemOf(open.part, this.#ctx.request, open.id);
        this.#output.push(item);
        return (open.summaryOpen ? w.summaryDone(open.id, open.at, 0, open.part.text) : '') + w.itemDone(open.at, item);
      }
      case 'tool-call-start': {
        const at = this.#output.length;
        const custom = ev.kind === 'custom' ? 'raw' : isCustomTool(this.#ctx.request, ev.name) ? 'wrapped' : null;
        const id = responsesId(custom === null ? 'fc' : 'ctc');
        this.#open = { kind: 'tool', id, at, callId: ev.id, name: ev.name, input: '', custom };
        const item =
          custom === null
            ? functionCallItem({ id, callId: ev.id, name: ev.name, arguments: '', status: 'in_progress' })
            : customToolCallItem({ id, callId: ev.id, name: ev.name, input: '' });
        return this.#start() + w.itemAdded(at, item);
      }
      case 'tool-call-end':
        return open?.kind === 'tool' ? this.#endTool(open) : '';
      case 'usage':
        this.#usage = ev.usage;
        return '';
      case 'finish': {
        const { status, reason } = statusOf(ev.reason);
        const error =
          status === 'failed'
            ? { code: 'server_error', message: 'The upstream ended the response with an error.' }
            : null;
        const response = this.#response(status, reason, error);
        if (status !== 'failed') this.#final = JSON.stringify(response);
        return this.#start() + w.terminal(response);
      }
      case 'error': {
        const code = ev.status === 429 ? 'rate_limit_exceeded' : 'server_error';
        return this.#start() + w.terminal(this.#response('failed', null, { code, message: ev.message }));
      }
    }
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#w.created(this.#response('in_progress', null, null));
  }

  #endTool(open: Extract<Open, { kind: 'tool' }>): string {
    const w = this.#w;
    this.#open = null;
    if (open.custom === null) {
      const item = functionCallItem({
        id: open.id,
        callId: open.callId,
        name: open.name,
        arguments: open.input,
        status: 'completed',
      });
      this.#output.push(item);
      return w.argumentsDone(open.id, open.at, open.name, open.input) + w.itemDone(open.at, item);
    }
    const input = open.custom === 'wrapped' ? unwrapCustomInput(open.input) : open.input;
    const item = customToolCallItem({ id: open.id, callId: open.callId, name: open.name, input });
    this.#output.push(item);
    const whole = open.custom === 'wrapped' && input !== '' ? w.customInputDelta(open.id, open.at, input) : '';
    return whole + w.customInputDone(open.id, open.at, input) + w.itemDone(open.at, item);
  }

  #response(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    reason: 'max_output_tokens' | 'content_filter' | null,
    error: { code: string; message: string } | null,
  ): JsonObject {
    return responseObject({
      id: this.#id,
      model: this.#ctx.model,
      createdAt: this.#ctx.created,
      status,
      output: status === 'in_progress' ? [] : this.#output,
      usage: status === 'in_progress' || this.#usage === null ? null : responsesUsage(this.#usage),
      echo: this.#echo,
      incompleteReason: reason,
      error,
    });
  }
}
