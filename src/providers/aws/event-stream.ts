// AWS's binary event stream (`application/vnd.amazon.eventstream`): Bedrock's streamed replies arrive as
// length-prefixed messages, each with typed headers (`:event-type`, `:message-type`, `:exception-type`)
// and a JSON payload. The decoder cuts a body that arrives in arbitrary chunks into whole messages
// (`@smithy/eventstream-codec` checks each message's prelude and CRCs) and hands them on as frames: the
// event's type and its payload as text. The encoder writes the same framing for replies the gateway itself
// answers in Bedrock's format.
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Frame, FrameDecoder } from '../../spec/framing.ts';

/** One decoded message: an event (`kind: 'event'`) or an exception the upstream raised mid-stream. */
export interface EventStreamMessage {
  /** `event`, `exception` or `error` (`:message-type`). */
  readonly messageType: string;
  /** `:event-type` for an event, `:exception-type` for an exception, `:error-code` for an error. */
  readonly type: string;
  /** The payload as text (JSON for Bedrock). */
  readonly data: string;
}

/**
 * A frame as the hub's stream decoders read it: the message's type (an exception's type, which ends in
 * `Exception`, stands where an event type would) and its payload.
 */
export type EventStreamFrame = Frame;

const codec = new EventStreamCodec(toUtf8, fromUtf8);

type MessageHeaders = ReturnType<EventStreamCodec['decode']>['headers'];

/** The prelude's first field: the total length of the message, big-endian. */
const PRELUDE_TOTAL_LENGTH = 4;
/** The smallest well-formed message: prelude (12 bytes) and message CRC (4 bytes). */
const MIN_MESSAGE = 16;
/** A message larger than this is refused rather than buffered (AWS's own limit is 16 MiB per message). */
const MAX_MESSAGE = 24 * 1024 * 1024;

function headerText(headers: MessageHeaders, name: string): string | undefined {
  const h = headers[name];
  return h !== undefined && h.type === 'string' ? h.value : undefined;
}

/** Reads one whole message's bytes. Throws when its CRCs or lengths do not hold. */
export function decodeMessage(bytes: Uint8Array): EventStreamMessage {
  const m = codec.decode(bytes);
  const messageType = headerText(m.headers, ':message-type') ?? 'event';
  const type =
    messageType === 'exception'
      ? (headerText(m.headers, ':exception-type') ?? 'UnknownException')
      : messageType === 'error'
        ? (headerText(m.headers, ':error-code') ?? 'UnknownError')
        : (headerText(m.headers, ':event-type') ?? '');
  return { messageType, type, data: toUtf8(m.body) };
}

/**
 * Cuts one stream's body into messages; one instance per stream. Keeps only the bytes of the message a
 * chunk left unfinished.
 */
export class EventStreamDecoder implements FrameDecoder {
  #pending: Uint8Array = new Uint8Array(0);

  /** Every message this chunk completes, in order. Throws on a corrupt message (the stream is unusable). */
  pushMessages(chunk: Uint8Array): EventStreamMessage[] {
    let buf = this.#pending.length === 0 ? chunk : concat(this.#pending, chunk);
    const out: EventStreamMessage[] = [];
    while (buf.length >= PRELUDE_TOTAL_LENGTH) {
      const total = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(0, false);
      if (total < MIN_MESSAGE || total > MAX_MESSAGE)
        throw new Error(`event stream message length ${total} is invalid`);
      if (buf.length < total) break;
      out.push(decodeMessage(buf.subarray(0, total)));
      buf = buf.subarray(total);
    }
    // Copy the remainder so the caller's chunk is not held alive by a view into it.
    this.#pending = buf.length === 0 ? new Uint8Array(0) : buf.slice();
    return out;
  }

  /** Every frame this chunk completes, in order (the hub's FrameDecoder shape). */
  push(chunk: Uint8Array): EventStreamFrame[] {
    const messages = this.pushMessages(chunk);
    const frames: EventStreamFrame[] = new Array(messages.length);
    for (let i = 0; i < messages.length; i++) frames[i] = { event: messages[i].type, data: messages[i].data };
    return frames;
  }

  /** The body ended: a message cut short is dropped (the stream then ends early). */
  end(): EventStreamFrame[] {
    this.#pending = new Uint8Array(0);
    return [];
  }

  /** Bytes of an unfinished message still held. */
  get pendingBytes(): number {
    return this.#pending.length;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** One event message (`:message-type: event`, JSON content type), as Bedrock sends them. */
export function encodeEvent(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(typeof payload === 'string' ? payload : JSON.stringify(payload)),
  });
}

/** One exception message (`:message-type: exception`) carrying `{"message": …}`, as Bedrock sends them. */
export function encodeException(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/**
 * InvokeModelWithResponseStream wraps each of the model's own events in a `chunk` event whose payload is
 * `{"bytes": base64(event JSON)}`: the inner event's JSON text.
 */
export function unwrapChunk(data: string): string {
  const parsed = JSON.parse(data) as { bytes?: unknown };
  if (typeof parsed.bytes !== 'string') throw new Error('event stream chunk has no bytes');
  return Buffer.from(parsed.bytes, 'base64').toString('utf8');
}

/** The `chunk` event that carries one of the model's own events (the inverse of unwrapChunk). */
export function encodeChunk(innerJson: string): Uint8Array {
  return encodeEvent('chunk', { bytes: Buffer.from(innerJson, 'utf8').toString('base64') });
}
