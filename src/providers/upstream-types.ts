// The one shape every provider call returns, whether it crossed the network or came from the mock.
import type { Dialect } from '../core/dialect.ts';
import type { DeploymentConfig } from '../core/config-types.ts';

export interface UpstreamCall {
  deployment: DeploymentConfig;
  /** The dialect the body is written in: the provider's own (mock accepts either). */
  dialect: Dialect;
  body: string;
  /** Client headers that are forwarded (anthropic-version, anthropic-beta). */
  forwardHeaders: Record<string, string>;
  /** The provider key routing handed out for this attempt (KeyRotation); null for keyless providers. */
  apiKey: string | null;
  signal: AbortSignal;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array>;
}
