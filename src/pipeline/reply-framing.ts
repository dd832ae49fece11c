// How a cloud route frames a streamed reply when its clients do not read Server-Sent Events: Bedrock's
// InvokeModelWithResponseStream answers in AWS's binary event stream, each of Anthropic's events (an
// error event too) the base64 `bytes` of one `chunk` message, as Bedrock itself sends them; ConverseStream
// answers in the same framing with Converse's own events, one message each, and an exception message
// (`throttlingException`, …) where the stream fails. The relay underneath writes the Anthropic SSE stream
// as for /v1/messages; this cuts it into events and re-frames each, so usage, stages and in-stream errors
// work unchanged.
import { SseDecoder, type SseEvent } from '../core/sse.ts';
import type { GatewayError } from '../core/errors.ts';
import { maskKeyLike } from '../core/mask-secrets.ts';
import type { Usage } from '../core/usage.ts';
import { encodeChunk, encodeEvent, encodeException } from '../providers/aws/event-stream.ts';
import type { ClientSide } from '../spec/codec.ts';
import type { StreamRelay } from '../spec/exchange.ts';
import type { HubRequest } from '../spec/form.ts';
import { MessagesStreamAs, type Retold } from '../translate/client-over-messages.ts';

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

/** ConverseStream's exception member for an HTTP status (the SDK raises the error class of that name). */
export function converseExceptionType(status: number): string {
  if (status === 400 || status === 413) return 'validationException';
  if (status === 429) return 'throttlingException';
  if (status === 503 || status === 529) return 'serviceUnavailableException';
  if (status === 502) return 'modelStreamErrorException';
  return 'internalServerException';
}

/** ConverseStream events (as SSE text) and an error, as event-stream messages. */
function converseMessages(pending: Retold): Uint8Array {
  const frames: Uint8Array[] = [];
  if (pending.text !== '')
    for (const e of new SseDecoder().push(pending.text)) frames.push(encodeEvent(e.event ?? '', e.data));
  if (pending.error !== null)
    frames.push(encodeException(converseExceptionType(pending.error.status), maskKeyLike(pending.error.message)));
  if (frames.length === 0) return EMPTY;
  return frames.length === 1 ? frames[0] : Buffer.concat(frames);
}

class ConverseStreamRelay implements StreamRelay {
  readonly #inner: StreamRelay;
  readonly #sse = new SseDecoder();
  readonly #converse: MessagesStreamAs;

  constructor(inner: StreamRelay, converse: MessagesStreamAs) {
    this.#inner = inner;
    this.#converse = converse;
  }

  get finished(): boolean {
    return this.#inner.finished;
  }

  get failed(): boolean {
    return this.#inner.failed;
  }

  push(chunk: Uint8Array): Uint8Array {
    const out = this.#inner.push(chunk);
    return out.length === 0 ? EMPTY : this.#frames(this.#sse.push(out), false);
  }

  end(): Uint8Array {
    const out = this.#inner.end();
    return this.#frames([...(out.length === 0 ? [] : this.#sse.push(out)), ...this.#sse.end()], true);
  }

  usage(): Usage {
    return this.#inner.usage();
  }

  errorEvent(err: GatewayError, _requestId: string): Uint8Array {
    return encodeException(converseExceptionType(err.status), maskKeyLike(err.message));
  }

  #frames(events: SseEvent[], end: boolean): Uint8Array {
    const pending: Retold = { text: '', error: null };
    for (const e of events) this.#converse.push(e, pending);
    if (end) this.#converse.end(pending);
    return converseMessages(pending);
  }
}

/**
 * Bedrock's ConverseStream framing: the Messages stream underneath re-told by the Converse face (`client`),
 * whose stream text is one SSE event per Converse event.
 */
export function converseEventStream(
  client: ClientSide,
  at: () => { request: HubRequest; model: string; latencyMs: () => number },
): ReplyFraming {
  return {
    contentType: 'application/vnd.amazon.eventstream',
    wrap: (relay) => new ConverseStreamRelay(relay, new MessagesStreamAs(client, at())),
  };
}
