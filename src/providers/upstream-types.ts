// The one shape every provider call returns, whether it crossed the network or came from the mock.
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';
import type { UpstreamBody } from './upstream-body.ts';

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
  /** The dialect the body is written in: the provider's own (mock accepts either). */
  dialect: Dialect;
  body: string | Buffer;
  /**
   * The path after the provider's base URL when it is not the kind's generation endpoint (`/embeddings`,
   * Gemini's `/v1beta/models/{model}:generateContent`); undefined for chat completions and messages.
   */
  path?: string;
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
