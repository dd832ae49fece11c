// The fold of a reply stream's events into a whole reply: what a non-streamed reply is (events.ts).
// Used where a stream must be kept or answered whole, and by the tests that pin each dialect's streamed
// and whole replies to the same content.
import type { HubEvent } from './events.ts';
import type { AssistantPart, HubDialect, HubReply, ReasoningPart, TextPart, ToolCallPart } from './form.ts';
import { emptyUsage } from '../core/usage.ts';

export class ReplyFold {
  /** The upstream dialect whose stream this is: its reasoning parts name it (form.ts ReasoningPart). */
  readonly #origin: HubDialect | undefined;
  readonly #content: AssistantPart[] = [];
  /** The open block: one at a time (events.ts). */
  #open: TextPart | ReasoningPart | ToolCallPart | null = null;
  #reply: HubReply = { content: this.#content, finish: 'other', usage: emptyUsage() };
  #usageSeen = false;
  #ended = false;

  constructor(origin?: HubDialect) {
    this.#origin = origin;
  }

  push(ev: HubEvent): void {
    if (this.#ended) return;
    switch (ev.type) {
      case 'start':
        if (ev.id !== undefined) this.#reply.id = ev.id;
        return;
      case 'text-start':
        this.#begin({ type: 'text', text: '' });
        return;
      case 'text-delta':
        if (this.#open?.type === 'text') this.#open.text += ev.text;
        return;
      case 'reasoning-start': {
        const part: ReasoningPart = { type: 'reasoning', text: '' };
        if (this.#origin !== undefined) part.origin = this.#origin;
        if (ev.id !== undefined) part.id = ev.id;
        if (ev.redacted !== undefined) part.redacted = ev.redacted;
        if (ev.encrypted !== undefined) part.encrypted = ev.encrypted;
        this.#begin(part);
        return;
      }
      case 'reasoning-delta':
        if (this.#open?.type === 'reasoning') this.#open.text += ev.text;
        return;
      case 'reasoning-signature':
        if (this.#open?.type === 'reasoning') this.#open.signature = (this.#open.signature ?? '') + ev.signature;
        return;
      case 'tool-call-start': {
        const part: ToolCallPart = { type: 'tool-call', id: ev.id, name: ev.name, input: '' };
        if (ev.kind !== undefined) part.kind = ev.kind;
        if (ev.signature !== undefined) part.signature = ev.signature;
        this.#begin(part);
        return;
      }
      case 'tool-call-delta':
        if (this.#open?.type === 'tool-call') this.#open.input += ev.input;
        return;
      case 'text-end':
      case 'reasoning-end':
      case 'tool-call-end':
        this.#open = null;
        return;
      case 'usage':
        this.#reply.usage = { ...ev.usage };
        this.#usageSeen = true;
        return;
      case 'finish':
        this.#reply.finish = ev.reason;
        if (ev.stopSequence !== undefined) this.#reply.stopSequence = ev.stopSequence;
        this.#ended = true;
        return;
      case 'error':
        this.#reply.finish = 'error';
        this.#ended = true;
        return;
    }
  }

  /** The reply so far (whole once `finish` came). */
  reply(): HubReply {
    if (!this.#usageSeen) this.#reply.usageMissing = true;
    return this.#reply;
  }

  #begin(part: TextPart | ReasoningPart | ToolCallPart): void {
    this.#content.push(part);
    this.#open = part;
  }
}

export function foldEvents(events: Iterable<HubEvent>, origin?: HubDialect): HubReply {
  const fold = new ReplyFold(origin);
  for (const ev of events) fold.push(ev);
  return fold.reply();
}
