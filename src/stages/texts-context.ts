// The contexts stages get (stage.ts): a body's text slots collected on first use, replaced in place in
// the parsed body, and the hub form decoded on first use.
import type { Dialect } from '../core/dialect.ts';
import { setSlotText, slotText, type TextSlot } from '../dialects/text-slots.ts';
import type { HubReply, HubRequest } from '../spec/form.ts';
import { CLIENT_SIDES, UPSTREAM_SIDES } from '../registry.ts';
import type { ReplyContext, RequestContext, StageCounter, TextsContext } from './stage.ts';

type Collect = (body: Record<string, unknown>, out: TextSlot[]) => void;

export class BodyTexts implements TextsContext {
  readonly dialect: Dialect;
  readonly body: Record<string, unknown>;
  /** A text was replaced: the body must be written again. */
  changed = false;
  readonly #collect: Collect;
  readonly #counter: StageCounter;
  #slots: TextSlot[] | null = null;
  #texts: string[] | null = null;

  constructor(opts: { dialect: Dialect; body: Record<string, unknown>; collect: Collect; counter: StageCounter }) {
    this.dialect = opts.dialect;
    this.body = opts.body;
    this.#collect = opts.collect;
    this.#counter = opts.counter;
  }

  get texts(): readonly string[] {
    if (this.#texts === null) {
      const slots: TextSlot[] = [];
      this.#collect(this.body, slots);
      this.#slots = slots;
      this.#texts = slots.map(slotText);
    }
    return this.#texts;
  }

  setText(i: number, text: string): void {
    const texts = this.texts as string[];
    if (i < 0 || i >= texts.length || texts[i] === text) return;
    setSlotText(this.#slots![i], text);
    texts[i] = text;
    this.changed = true;
  }

  count(rule: string, n: number): void {
    this.#counter.count(rule, n);
  }
}

export class RequestTexts extends BodyTexts implements RequestContext {
  #hub: HubRequest | null = null;
  readonly #stream: boolean;

  constructor(opts: {
    dialect: Dialect;
    body: Record<string, unknown>;
    collect: Collect;
    counter: StageCounter;
    stream: boolean;
  }) {
    super(opts);
    this.#stream = opts.stream;
  }

  hub(): HubRequest {
    this.#hub ??= CLIENT_SIDES[this.dialect].decodeRequest(this.body, { stream: this.#stream });
    return this.#hub;
  }
}

export class ReplyTexts extends BodyTexts implements ReplyContext {
  #hub: HubReply | null = null;

  hub(): HubReply {
    // The caller's dialect read as an upstream reply of that dialect: no request state is needed to read text.
    this.#hub ??= UPSTREAM_SIDES[this.dialect].decodeReply(this.body, undefined);
    return this.#hub;
  }
}

/** A streamed event that repeats whole texts (Responses' `*.done`): its texts only, no hub form. */
export class EventTexts extends BodyTexts implements ReplyContext {
  hub(): HubReply {
    throw new Error('A streamed event is not a whole reply: read its texts.');
  }
}
