// Parameters a deployment's model refuses (config `refused_params`): an upstream encoder leaves each out
// and says so, instead of the caller getting the upstream's 400.
import type { UpstreamOptions } from './codec.ts';

/** True (and the adjustment recorded) when the deployment refuses `field` and the request set it. */
export function refusedParam(opts: UpstreamOptions, field: string, adjustments: string[]): boolean {
  if (opts.refusedParams.length === 0 || !opts.refusedParams.includes(field)) return false;
  adjustments.push(`${field} left out: the deployment's model refuses it`);
  return true;
}
