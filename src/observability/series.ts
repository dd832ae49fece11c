// What a request reports to the metrics, and the lookup of its series, shared by the gateway's metrics
// and the GenAI ones.

/**
 * A request's series, found in three map lookups of strings that already exist (a prom-client call would
 * hash its labels); `make` binds a new one's label children, once per label set.
 */
export function seriesIn<K, V>(
  root: Map<string, Map<string, Map<K, V>>>,
  endpoint: string,
  model: string,
  last: K,
  make: () => V,
): V {
  let byModel = root.get(endpoint);
  if (byModel === undefined) root.set(endpoint, (byModel = new Map()));
  let byLast = byModel.get(model);
  if (byLast === undefined) byModel.set(model, (byLast = new Map()));
  let s = byLast.get(last);
  if (s === undefined) byLast.set(last, (s = make()));
  return s;
}

/** What the accounting stage reports once per request. */
export interface RequestObservation {
  endpoint: string;
  /** The bounded label (a configured model, `(unknown)` or `(none)`), never the caller's raw text. */
  model: string;
  status: number;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The deployment that answered, or null when no upstream was reached. */
  deployment: string | null;
  stream: boolean;
  ttfbMs: number | null;
}
