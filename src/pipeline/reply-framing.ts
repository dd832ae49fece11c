// How a cloud route frames a streamed reply when its clients do not read Server-Sent Events: Bedrock's
// InvokeModelWithResponseStream answers in AWS's binary event stream, each of Anthropic's events (an
// error event too) the base64 `bytes` of one `chunk` message, as Bedrock itself sends them. The relay
// underneath writes the Anthropic SSE stream as for /v1/messages; this cuts it into events and re-frames
// each, so usage, stages and in-stream errors work unchanged.
import { SseDecoder, type SseEvent } from '../core/sse.ts';
import type { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import { encodeChunk } from '../providers/bedrock/event-stream.ts';
import type { StreamRelay } from '../spec/exchange.ts';

export interface ReplyFraming {
  /** The streamed reply's content type. */
  readonly contentType: string;
  /** The relay whose output is re-framed. */
  wrap(relay: StreamRelay): StreamRelay;
}

const EMPTY = new Uint8Array(0);

function chunksOf(events: SseEvent[]): Uint8Array {
  const frames: Uint8Array[] = [];
  for (const e of events) if (e.data !== '') frames.push(encodeChunk(e.data));
  if (frames.length === 0) return EMPTY;
  return frames.length === 1 ? frames[0] : Buffer.concat(frames);
}

class EventStreamRelay implements StreamRelay {
  readonly #inner: StreamRelay;
  readonly #sse = new SseDecoder();

  constructor(inner: StreamRelay) {
    this.#inner = inner;
    if (inner.finalResponse !== undefined) this.finalResponse = () => inner.finalResponse?.() ?? null;
  }

  finalResponse?: () => string | null;

  get finished(): boolean {
    return this.#inner.finished;
  }

  get failed(): boolean {
    return this.#inner.failed;
  }

  push(chunk: Uint8Array): Uint8Array {
    const out = this.#inner.push(chunk);
    return out.length === 0 ? EMPTY : chunksOf(this.#sse.push(out));
  }

  end(): Uint8Array {
    const out = this.#inner.end();
    return chunksOf([...(out.length === 0 ? [] : this.#sse.push(out)), ...this.#sse.end()]);
  }

  usage(): Usage {
    return this.#inner.usage();
  }

  errorEvent(err: GatewayError, requestId: string): Uint8Array {
    const text = this.#inner.errorEvent(err, requestId);
    // The error event stands alone: whatever half event the decoder held is not sent.
    return chunksOf(new SseDecoder().push(text));
  }
}

/** Bedrock's InvokeModelWithResponseStream framing. */
export const BEDROCK_EVENT_STREAM: ReplyFraming = {
  contentType: 'application/vnd.amazon.eventstream',
  wrap: (relay) => new EventStreamRelay(relay),
};
