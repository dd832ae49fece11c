// The routing seam: tries deployments until one answers 2xx, failing over on retryable upstream
// answers and connection errors, only before anything reached the client.
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { UpstreamResponse } from '../providers/upstream-types.ts';
import type { Exchange } from './exchange.ts';
import type { ExchangeInput } from './exchange-for.ts';
import { exchangeFor } from './exchange-for.ts';
import { callUpstream, discard, readAll } from './call-upstream.ts';
import { isRetryableStatus, upstreamFailure } from './upstream-error.ts';
import type { Gateway } from './gateway.ts';
import type { RequestState } from './request-state.ts';

export interface Answer {
  exchange: Exchange;
  response: UpstreamResponse;
  deployment: DeploymentConfig;
}

type Failure = { kind: 'status'; status: number; text: string; retryAfter: string | null } | { kind: 'timeout' | 'connection'; message: string };

function orderDeployments(model: ModelConfig): DeploymentConfig[] {
  return [...model.deployments].sort((a, b) => a.priority - b.priority);
}

export async function obtainAnswer(opts: {
  gw: Gateway;
  state: RequestState;
  model: ModelConfig;
  input: Omit<ExchangeInput, 'deployment'>;
  forwardHeaders: Record<string, string>;
  signal: AbortSignal;
}): Promise<Answer> {
  const { gw, state, model, input } = opts;
  const order = orderDeployments(model);
  const maxAttempts = Math.max(1, Math.min(order.length, model.maxRetries + 1));
  let last: Failure | null = null;
  for (let i = 0; i < maxAttempts; i++) {
    if (opts.signal.aborted) throw new GatewayError('upstream_error', { message: 'The client went away.' });
    const deployment = order[i];
    const exchange = exchangeFor({ ...input, deployment });
    state.attempts++;
    let response: UpstreamResponse;
    try {
      response = await callUpstream(
        {
          deployment,
          dialect: exchange.upstreamDialect,
          body: exchange.upstreamBody(),
          forwardHeaders: opts.forwardHeaders,
          signal: opts.signal,
          firstByteTimeoutMs: model.timeouts.firstByteMs,
          idleTimeoutMs: model.timeouts.idleMs,
        },
        model.timeouts.connectMs,
      );
    } catch (err) {
      if (opts.signal.aborted) throw new GatewayError('upstream_error', { message: 'The client went away.' });
      last = classifyThrown(err);
      gw.metrics.upstreamError(deployment.id, last.kind);
      gw.log.warn({ requestId: state.requestId, deployment: deployment.id, failure: last.kind, err: gw.masker.mask(String(err)) }, 'upstream attempt failed');
      continue;
    }
    if (response.status < 300) return { exchange, response, deployment };
    const text = await readAll(response.body).catch(() => '');
    if (!isRetryableStatus(response.status)) {
      gw.metrics.upstreamError(deployment.id, `status_${response.status}`);
      state.deployment = deployment.id;
      throw upstreamFailure({ status: response.status, text, upstreamDialect: exchange.upstreamDialect, clientDialect: state.dialect, masker: gw.masker });
    }
    const ra = response.headers['retry-after'];
    last = { kind: 'status', status: response.status, text, retryAfter: typeof ra === 'string' ? ra : null };
    gw.metrics.upstreamError(deployment.id, `status_${response.status}`);
    gw.log.warn({ requestId: state.requestId, deployment: deployment.id, status: response.status }, 'upstream attempt failed');
  }
  throw finalFailure(last, state.attempts, gw);
}

function classifyThrown(err: unknown): Failure {
  const code = (err as { code?: string }).code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code.includes('TIMEOUT') || (err as Error).name === 'TimeoutError') return { kind: 'timeout', message };
  return { kind: 'connection', message };
}

function finalFailure(last: Failure | null, attempts: number, gw: Gateway): GatewayError {
  const tries = `after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
  if (last === null) return new GatewayError('no_deployment_available');
  if (last.kind === 'timeout') return new GatewayError('upstream_timeout', { message: `The upstream provider timed out ${tries}.` });
  if (last.kind !== 'status') return new GatewayError('upstream_error', { message: `Could not reach the upstream provider ${tries}.` });
  const upstreamText = gw.masker.mask(last.text.slice(0, 500));
  if (last.status === 429) {
    return new GatewayError('upstream_rate_limited', {
      message: `The upstream provider is rate-limiting ${tries}: ${upstreamText}`,
      headers: last.retryAfter ? { 'retry-after': last.retryAfter } : {},
    });
  }
  return new GatewayError('upstream_error', { message: `Upstream error ${last.status} ${tries}: ${upstreamText}` });
}

export { discard };
