// How a provider frames a streamed reply: the bytes of its body cut into the frames its dialect's stream
// decoder reads. Most upstreams send Server-Sent Events; a provider with a binary event stream (AWS's
// `application/vnd.amazon.eventstream`) gives its own decoder that yields the same frames, so the hub's
// stream decoders never see the wire's framing.

/**
 * One event of an upstream stream: an SSE event as it is, or what a provider's own framing makes of its
 * messages (the event's type, and its payload as JSON text).
 */
export interface Frame {
  /** The event's type (SSE's `event:` field), or undefined when it has none (OpenAI chat chunks). */
  event: string | undefined;
  /** The event's payload: SSE's `data:` lines joined with "\n". */
  data: string;
}

/** Cuts one reply's body into frames; one instance serves one stream and keeps what a chunk left over. */
export interface FrameDecoder {
  /** Every frame this chunk completes, in order. */
  push(chunk: Uint8Array): Frame[];
  /** The body ended: whatever was complete. A frame cut short is dropped (its stream then ends early). */
  end(): Frame[];
}
