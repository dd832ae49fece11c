// The hub's side of keeping an upstream's tool-call signatures for a caller that cannot carry them
// (spec/call-signatures.ts): which calls of a request to look up, and a stream decoder that hands on
// each signed call as the upstream's stream names it, so its write starts before the stream ends.
import type { UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { Frame } from '../../spec/framing.ts';
import type { HubRequest } from '../../spec/form.ts';
import type { KeptSignature } from '../../spec/call-signatures.ts';

/** Calls looked up per request: the newest, which the model checks (Gemini validates the current turn's). */
export const LOOKED_UP_CALLS = 16;

/** The ids of the request's tool calls that came back without a signature, newest first. */
export function unsignedCalls(req: HubRequest): string[] {
  const ids: string[] = [];
  for (let i = req.messages.length - 1; i >= 0 && ids.length < LOOKED_UP_CALLS; i--) {
    const m = req.messages[i];
    if (m.role !== 'assistant') continue;
    for (let j = m.content.length - 1; j >= 0 && ids.length < LOOKED_UP_CALLS; j--) {
      const p = m.content[j];
      if (p.type === 'tool-call' && p.signature === undefined && p.id !== '') ids.push(p.id);
    }
  }
  return ids;
}

/** An upstream stream decoder whose signed tool calls are handed to `keep` as they start. */
export class SignatureTap implements UpstreamStreamDecoder {
  readonly #inner: UpstreamStreamDecoder;
  readonly #keep: (kept: KeptSignature) => void;

  constructor(inner: UpstreamStreamDecoder, keep: (kept: KeptSignature) => void) {
    this.#inner = inner;
    this.#keep = keep;
  }

  push(ev: Frame): HubEvent[] {
    return this.#seen(this.#inner.push(ev));
  }

  end(): HubEvent[] {
    return this.#seen(this.#inner.end());
  }

  #seen(events: HubEvent[]): HubEvent[] {
    for (const ev of events)
      if (ev.type === 'tool-call-start' && ev.signature !== undefined)
        this.#keep({ callId: ev.id, signature: ev.signature });
    return events;
  }
}
