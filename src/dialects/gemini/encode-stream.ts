// Hub events → streamGenerateContent SSE for a Gemini caller: one GenerateContentResponse chunk per
// piece, as Gemini streams. A function call goes out whole when its input is complete (Gemini never
// streams arguments); the last chunk carries the finishReason and the usage, as Gemini's does, so the
// newest piece is held back until the next one or the end shows which chunk is last. One per request.
import type { ClientReplyContext, ClientStreamEncoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { HubUsage } from '../../spec/form.ts';
import { carrierOf, StreamedReasoning } from '../../spec/reasoning-carrier.ts';
import { geminiErrorStatus } from './errors.ts';
import { argsOfInput } from './encode-reply.ts';
import { HUB_TO_GEMINI_FINISH } from './finish-reasons.ts';
import { usageToGemini } from './usage.ts';

type Json = Record<string, unknown>;

export class GeminiStreamEncoder implements ClientStreamEncoder {
  readonly #model: string;
  readonly #responseId: string;
  readonly #showThoughts: boolean;
  /** The newest parts, not sent yet: the last chunk must carry the finishReason. */
  #held: Json[] | null = null;
  #call: { id: string; name: string; input: string; signature?: string } | null = null;
  #usage: HubUsage | null = null;
  /** Reasoning of a provider other than Gemini, gathered until its block ends; null when Gemini answers. */
  readonly #foreign: StreamedReasoning | null;

  constructor(ctx: ClientReplyContext) {
    this.#foreign = ctx.origin === undefined || ctx.origin === 'gemini' ? null : new StreamedReasoning(ctx.origin);
    this.#model = ctx.model;
    this.#responseId = `mg-${ctx.created}-${Math.random().toString(36).slice(2, 10)}`;
    this.#showThoughts = ctx.request.reasoning?.summary !== undefined;
  }

  push(ev: HubEvent): string {
    switch (ev.type) {
      case 'text-delta':
        return ev.text === '' ? '' : this.#hold({ text: ev.text });
      case 'reasoning-start':
        this.#foreign?.start(ev);
        return '';
      case 'reasoning-delta':
        this.#foreign?.text(ev.text);
        return this.#showThoughts && ev.text !== '' ? this.#hold({ text: ev.text, thought: true }) : '';
      case 'reasoning-signature':
        this.#foreign?.signature(ev.signature);
        return '';
      case 'reasoning-end': {
        // Another provider's opaque reasoning: its token closes the thoughts, as Gemini's own signature does.
        const part = this.#foreign?.end() ?? null;
        const token = part === null || !this.#showThoughts ? undefined : carrierOf(part);
        return token === undefined ? '' : this.#hold({ text: '', thought: true, thoughtSignature: token });
      }
      case 'tool-call-start':
        this.#call = { id: ev.id, name: ev.name, input: '' };
        if (ev.signature !== undefined) this.#call.signature = ev.signature;
        return '';
      case 'tool-call-delta':
        if (this.#call !== null) this.#call.input += ev.input;
        return '';
      case 'tool-call-end': {
        const call = this.#call;
        this.#call = null;
        if (call === null) return '';
        const part: Json = { functionCall: { id: call.id, name: call.name, args: argsOfInput(call.input) } };
        if (call.signature !== undefined) part.thoughtSignature = call.signature;
        return this.#hold(part);
      }
      case 'usage':
        this.#usage = ev.usage;
        return '';
      case 'finish': {
        const parts = this.#held ?? [{ text: '' }];
        this.#held = null;
        const chunk = this.#chunk(parts, HUB_TO_GEMINI_FINISH[ev.reason]);
        if (this.#usage !== null) chunk.usageMetadata = usageToGemini(this.#usage);
        return frame(chunk);
      }
      case 'error': {
        const held = this.#flush();
        return `${held}data: ${JSON.stringify({ error: { code: ev.status, message: ev.message, status: /^[A-Z_]+$/.test(ev.errorType) ? ev.errorType : geminiErrorStatus(ev.status) } })}\r\n\r\n`;
      }
      default:
        return '';
    }
  }

  /** Holds a new part back and sends what was held before it. */
  #hold(part: Json): string {
    const out = this.#flush();
    this.#held = [part];
    return out;
  }

  #flush(): string {
    if (this.#held === null) return '';
    const parts = this.#held;
    this.#held = null;
    return frame(this.#chunk(parts, null));
  }

  #chunk(parts: Json[], finish: string | null): Json {
    const candidate: Json = { content: { parts, role: 'model' }, index: 0 };
    if (finish !== null) candidate.finishReason = finish;
    return { candidates: [candidate], modelVersion: this.#model, responseId: this.#responseId };
  }
}

function frame(chunk: Json): string {
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}
