// A request's books once it is answered or given up, on every path that serves one (HTTP, the Responses
// WebSocket): the upstream's counts clamped first (they are its word, not ours), the cost priced, the
// reservation settled in the store, then the usage row queued with the cost the store settled and the
// period the reservation belonged to, and the trace ended.
import type { Ticket } from '../admission/admission.ts';
import { priceRequest, recordRequest, rowModel, type RequestState } from '../accounting/record.ts';
import { billableUsage } from '../core/usage.ts';
import type { Gateway } from './gateway.ts';

export async function settleRequest(gw: Gateway, state: RequestState, ticket: Ticket | null): Promise<void> {
  state.usage = billableUsage(state.usage);
  const cost = priceRequest(gw, state);
  const period = ticket === null ? null : await gw.admission.finish(ticket, state.usage, cost);
  recordRequest(gw, state, period, ticket?.team?.periodStart ?? null);
  if (state.trace !== null)
    state.trace.end({
      model: rowModel(gw, state.model),
      stream: state.stream,
      status: state.status,
      errorCode: state.errorCode,
      deployment: state.deployment,
      usage: state.usage,
      ttfbMs: state.ttfbMs,
      attempts: state.attempts,
      keyId: state.key?.id ?? null,
      keyName: state.key?.name ?? null,
      team: state.key?.team ?? null,
    });
}
