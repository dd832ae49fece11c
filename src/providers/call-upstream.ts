// Dispatches one attempt to the provider kind: the network for openai/anthropic, in-process for mock.
import { callHttpProvider } from './http-provider.ts';
import { callMockProvider } from './mock/mock-provider.ts';
import type { UpstreamCall, UpstreamResponse } from './upstream-types.ts';

export function callUpstream(call: UpstreamCall, connectTimeoutMs: number): Promise<UpstreamResponse> {
  return call.deployment.provider.kind === 'mock' ? callMockProvider(call) : callHttpProvider(call, connectTimeoutMs);
}
