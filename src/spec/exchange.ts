// One request's conversation with one upstream attempt: what to send, and how to turn what comes back
// into the caller's dialect. Pass-through and each translation direction implement it; the request
// stage picks one by (endpoint dialect, provider) in translate/exchange-for.ts.
import type { Dialect } from '../core/dialect.ts';
import type { GatewayError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import type { TargetQuery } from './provider.ts';

export interface StreamRelay {
  /**
   * What to send the client for a chunk of upstream bytes (empty when nothing is to be sent yet):
   * pass-through hands on the upstream's bytes, translators build UTF-8 text.
   */
  push(chunk: Uint8Array): Uint8Array | string;
  /** What to send the client when the upstream body ended. */
  end(): Uint8Array | string;
  /** True once the upstream stream reached its normal end. */
  readonly finished: boolean;
  /**
   * True when the relay ended the stream with an error event of its own (a translated upstream's error
   * event, or its stream stopping early): the caller got a well-formed end, but the request failed.
   */
  readonly failed: boolean;
  /** What to bill: the upstream's own figures, or the documented count of what was delivered. */
  usage(): Usage;
  /** A well-formed in-stream error in the caller's dialect (the stream then ends). */
  errorEvent(err: GatewayError, requestId: string): string | Uint8Array;
  /** Responses API: the whole response object the stream ended with (JSON text), for the gateway to store. */
  finalResponse?(): string | null;
}

export interface Exchange {
  readonly upstreamDialect: Dialect;
  /** What the upstream is asked (operation, body dialect, stream): the provider's target follows from it. */
  readonly upstreamQuery: TargetQuery;
  /** Headers to add to the client response (e.g. which parameters translation adjusted). */
  readonly responseHeaders: Record<string, string>;
  /**
   * Translated routes whose upstream signs its tool calls: reads what was kept for the caller's calls
   * (spec/call-signatures.ts) before the body is built. Absent where there is nothing to read.
   */
  prepare?(): Promise<void>;
  /**
   * What the reply left for the caller's next turn being written (the signatures of its tool calls), or
   * null when there is none: the relay awaits it before the reply's last byte, so the next turn finds it
   * on any replica. Never rejects.
   */
  kept?(): Promise<void> | null;
  /**
   * Pass-through, after the upstream refused the body with a 400: drops the reasoning the gateway carried
   * in its tokens for another provider (reasoning-carrier.ts) from the body and says so; true when there
   * was some (the body is then sent again). Never run on a body the upstream took.
   */
  withoutCarriedReasoning?(): boolean;
  /** The request body for the upstream: the client's bytes (pass-through) or a rebuilt JSON text. */
  upstreamBody(): string | Buffer;
  /** A whole (non-streamed) 2xx upstream body → the caller's body and the usage to bill. */
  json(upstreamText: string): { body: string; usage: Usage };
  stream(): StreamRelay;
}
