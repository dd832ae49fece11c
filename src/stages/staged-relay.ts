// A streamed reply through the stream stages: wraps the exchange's relay (pass-through or translated,
// both already in the caller's dialect) and rewrites the text deltas of its events. Each text channel
// (a choice, a content block) has one filter per stage, whose state lasts across events; what a filter
// holds back goes out, as one more delta event shaped like the channel's last, before the next event
// that is not a delta (a finish chunk, a block's stop, [DONE]) or at the end. Events nothing changed
// go out as they came; a changed one is its data line re-serialised.
import { Utf8Chunks } from '../core/utf8-chunks.ts';
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import { setSlotText, slotText, type DialectTexts, type TextSlot } from '../dialects/text-slots.ts';
import type { StreamRelay } from '../spec/exchange.ts';
import type { StageCounter, StreamTextFilter } from './stage.ts';
import type { StageList } from './plan.ts';
import { DIALECT_TEXTS } from './dialect-texts.ts';
import { runAfterReply } from './run.ts';
import { EventTexts } from './texts-context.ts';

interface Channel {
  filters: StreamTextFilter[];
  /** The channel's last delta event: the shape of the event that carries what the filters held back. */
  template: string;
}

/** Texts repeated whole (Responses' `*.done` events) are masked again, but counted once, as deltas. */
const UNCOUNTED: StageCounter = { count() {} };

export class StagedRelay implements StreamRelay {
  readonly #inner: StreamRelay;
  readonly #list: StageList;
  readonly #dialect: Dialect;
  readonly #texts: DialectTexts;
  readonly #counter: StageCounter;
  readonly #utf8 = new Utf8Chunks();
  readonly #channels = new Map<number, Channel>();
  /** Text of an event not yet ended by its blank line. */
  #pending = '';

  constructor(inner: StreamRelay, opts: { list: StageList; dialect: Dialect; counter: StageCounter }) {
    this.#inner = inner;
    this.#list = opts.list;
    this.#dialect = opts.dialect;
    this.#texts = DIALECT_TEXTS[opts.dialect];
    this.#counter = opts.counter;
  }

  get finished(): boolean {
    return this.#inner.finished;
  }

  get failed(): boolean {
    return this.#inner.failed;
  }

  push(chunk: Uint8Array): string {
    return this.#events(this.#inner.push(chunk));
  }

  end(): string {
    let out = this.#events(this.#inner.end());
    out += this.#events(this.#utf8.end());
    // An event left without its blank line, then whatever the filters still hold.
    const rest = this.#pending;
    this.#pending = '';
    return out + this.#flushAll() + rest;
  }

  usage(): Usage {
    return this.#inner.usage();
  }

  errorEvent(err: GatewayError, requestId: string): string | Uint8Array {
    return this.#inner.errorEvent(err, requestId);
  }

  finalResponse(): string | null {
    const text = this.#inner.finalResponse?.() ?? null;
    return text === null ? null : runAfterReply(this.#list, this.#dialect, text, UNCOUNTED);
  }

  #events(out: Uint8Array | string): string {
    if (out.length === 0) return '';
    this.#pending += typeof out === 'string' ? out : this.#utf8.decode(out);
    let sent = '';
    for (;;) {
      const pending = this.#pending;
      let at = pending.indexOf('\n\n');
      let len = 2;
      const crlf = pending.indexOf('\r\n\r\n');
      if (crlf !== -1 && (at === -1 || crlf < at)) {
        at = crlf;
        len = 4;
      }
      if (at === -1) return sent;
      this.#pending = pending.slice(at + len);
      sent += this.#event(pending.slice(0, at + len));
    }
  }

  /** One whole SSE event, as it goes out (after anything held back that must go first). */
  #event(raw: string): string {
    const data = dataRange(raw);
    if (data === null) return raw;
    let event: unknown;
    try {
      event = raw.charCodeAt(data[0]) === 123 ? JSON.parse(raw.slice(data[0], data[1])) : null;
    } catch {
      event = null;
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return this.#flushAll() + raw;
    const body = event as Record<string, unknown>;
    const slots: TextSlot[] = [];
    this.#texts.streamDeltas(body, slots);
    if (slots.length === 0) return this.#flushAll() + this.#whole(raw, data, body);
    let changed = false;
    for (const slot of slots) {
      const channel = this.#channel(slot.channel, raw);
      const text = slotText(slot);
      let out = text;
      for (const filter of channel.filters) out = filter.push(out);
      if (out !== text) {
        setSlotText(slot, out);
        changed = true;
      }
    }
    if (this.#texts.streamEnds(body))
      for (const slot of slots) {
        const held = flush(this.#channels.get(slot.channel)!);
        if (held === '') continue;
        setSlotText(slot, slotText(slot) + held);
        changed = true;
      }
    return changed ? withData(raw, data, body) : raw;
  }

  #channel(id: number, raw: string): Channel {
    let channel = this.#channels.get(id);
    if (channel === undefined) {
      channel = { filters: this.#list.stream.map((s) => s.onStreamEvent!(this.#counter)), template: raw };
      this.#channels.set(id, channel);
    } else {
      channel.template = raw;
    }
    return channel;
  }

  /** An event that is not a delta, with any whole texts it repeats passed through the reply stages. */
  #whole(raw: string, data: [number, number], body: Record<string, unknown>): string {
    if (this.#list.reply.length === 0) return raw;
    const ctx = new EventTexts({ dialect: this.#dialect, body, collect: this.#texts.streamWhole, counter: UNCOUNTED });
    if (ctx.texts.length === 0) return raw;
    for (const stage of this.#list.reply) stage.afterReply!(ctx);
    return ctx.changed ? withData(raw, data, body) : raw;
  }

  /** What every channel holds back, each as one more delta event shaped like its last. */
  #flushAll(): string {
    let out = '';
    for (const [id, channel] of this.#channels) {
      const held = flush(channel);
      if (held === '') continue;
      const data = dataRange(channel.template)!;
      const body = JSON.parse(channel.template.slice(data[0], data[1])) as Record<string, unknown>;
      const slots: TextSlot[] = [];
      this.#texts.streamDeltas(body, slots);
      for (const slot of slots) setSlotText(slot, slot.channel === id ? held : '');
      out += withData(channel.template, data, body);
    }
    return out;
  }
}

function flush(channel: Channel): string {
  let out = '';
  for (const filter of channel.filters) out = filter.push(out) + filter.flush();
  return out;
}

/** [start, end) of the payload of the event's first `data:` line; null when it has none. */
function dataRange(raw: string): [number, number] | null {
  const line = raw.startsWith('data:') ? 0 : raw.indexOf('\ndata:') + 1;
  if (line === 0 && !raw.startsWith('data:')) return null;
  let start = line + 5;
  if (raw.charCodeAt(start) === 32) start++;
  let end = start;
  while (end < raw.length && raw.charCodeAt(end) !== 10 && raw.charCodeAt(end) !== 13) end++;
  return [start, end];
}

function withData(raw: string, data: [number, number], body: Record<string, unknown>): string {
  return raw.slice(0, data[0]) + JSON.stringify(body) + raw.slice(data[1]);
}
