// One request's conversation with one upstream attempt: what to send, and how to turn what comes back
// into the caller's dialect. Pass-through and each translation direction implement it; the request
// stage picks one by (endpoint dialect, provider kind) in exchange-for.ts.
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';

export interface StreamRelay {
  /** Client text for a chunk of upstream bytes ('' when nothing is to be sent yet). */
  push(chunk: Uint8Array): string;
  /** Client text when the upstream body ended. */
  end(): string;
  /** True once the upstream stream reached its normal end. */
  readonly finished: boolean;
  /** What to bill: the upstream's own figures, or the documented count of what was delivered. */
  usage(): Usage;
  /** A well-formed in-stream error in the caller's dialect (the stream then ends). */
  errorEvent(err: GatewayError, requestId: string): string;
}

export interface Exchange {
  readonly upstreamDialect: Dialect;
  /** Headers to add to the client response (e.g. which parameters translation adjusted). */
  readonly responseHeaders: Record<string, string>;
  /** The request body for the upstream: the client's bytes (pass-through) or a rebuilt JSON text. */
  upstreamBody(): string | Buffer;
  /** A whole (non-streamed) 2xx upstream body → the caller's body and the usage to bill. */
  json(upstreamText: string): { body: string; usage: Usage };
  stream(): StreamRelay;
}
