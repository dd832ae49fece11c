// The one shape every provider call returns, whether it crossed the network or came from the mock.
import type { DeploymentConfig } from '../core/config-types.ts';
import type { TargetQuery } from './provider.ts';

/**
 * How an attempt is stopped from our side (a clock fired, the client left, the attempt was given up).
 * A callback slot rather than an AbortSignal: EventTarget listeners are costly on the hot path.
 */
export interface StopLink {
  /** The reason once stopped; null while the attempt runs. */
  readonly stopError: Error | null;
  /** Called once with the reason when the attempt is stopped (at once if it already is). */
  onStop(callback: (reason: Error) => void): void;
  /** A real AbortSignal for APIs that need one (the mock's timers); made on first use. */
  readonly signal: AbortSignal;
}

export interface UpstreamCall {
  deployment: DeploymentConfig;
  /** What is asked, and the dialect the body is written in (the provider's own; the mock takes any). */
  query: TargetQuery;
  body: string | Buffer;
  /** Client headers that are forwarded (anthropic-version, anthropic-beta). */
  forwardHeaders: Record<string, string>;
  /** The provider key routing handed out for this attempt (KeyRotation); null for keyless providers. */
  apiKey: string | null;
  /** The attempt's clocks and the client: the only timers on the request (providers set none of their own). */
  stop: StopLink;
  /** W3C trace context for the upstream when tracing is on (`traceparent`), else null. */
  traceHeaders: Readonly<Record<string, string>> | null;
}

/** Header bag as undici returns it: lower-case names. */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

export interface UpstreamResponse {
  status: number;
  headers: UpstreamHeaders;
  body: UpstreamBody;
}

/** Called with each chunk in order; returning false pauses the upstream until `resume()`. */
export type ChunkSink = (chunk: Buffer) => boolean;

export interface UpstreamBody {
  /** The whole body as UTF-8 text (non-streamed answers and error bodies); rejects with UpstreamBodyTooLarge past the limit. */
  text(): Promise<string>;
  /** The whole body as bytes (an error body to decode); the same limit as `text`. */
  bytes(): Promise<Buffer>;
  /** Resolves true once the first chunk is in, false if the body ended without one. Reads nothing. */
  started(): Promise<boolean>;
  /**
   * Hands every chunk, those already in first, to `sink` until the body ends (resolves) or fails
   * (rejects). A sink that throws fails the pipe and stops the upstream. `onEnd` runs synchronously
   * when the body ends, in the same turn as the last chunk: the caller's last write then joins that
   * turn's corked writes (one syscall where a continuation after the promise would make two). If it
   * throws, the pipe rejects with its error.
   */
  pipe(sink: ChunkSink, onEnd?: () => void): Promise<void>;
  /** Lets a paused upstream deliver again (the client's socket drained). */
  resume(): void;
}

/**
 * A provider's credentials could not be had for a request (its `sign` step failed: a token endpoint
 * refused or could not be reached). Routing takes it as the upstream refusing the gateway's credentials:
 * the deployment is set aside and tried again later, and another one answers meanwhile.
 */
export class UpstreamCredentialsError extends Error {
  override readonly name = 'UpstreamCredentialsError';
}
