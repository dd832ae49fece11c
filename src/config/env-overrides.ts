// Settings the environment may override (a deployment's or a test's tuning without editing the file):
// each variable is written into the config document before validation, so the schema checks it like the
// setting it stands for, and an invalid value stops the start instead of being ignored. Empty = unset.

/** Each variable and the setting it overrides, as a key path in the YAML document. */
export const ENV_OVERRIDES: readonly { variable: string; path: readonly [string, ...string[]] }[] = [
  { variable: 'MODELGATE_BREAKER_FAILURES', path: ['circuit_breaker', 'failures'] },
  { variable: 'MODELGATE_BREAKER_MIN_CALLS', path: ['circuit_breaker', 'min_calls'] },
  { variable: 'MODELGATE_BREAKER_COOLDOWN_MS', path: ['circuit_breaker', 'cooldown_ms'] },
  { variable: 'MODELGATE_REDIS_PREFIX', path: ['redis_prefix'] },
  { variable: 'MODELGATE_SHUTDOWN_GRACE_S', path: ['shutdown_grace_s'] },
  { variable: 'MODELGATE_DRAIN_DELAY_S', path: ['drain_delay_s'] },
  { variable: 'MODELGATE_OVERLOAD_LOOP_DELAY_MS', path: ['overload_loop_delay_ms'] },
];

/**
 * The document with the set variables written over their settings (a copy along each path; the rest is
 * shared), and the variable behind each overridden path (`circuit_breaker.failures`), for error messages.
 */
export function applyEnvOverrides(doc: unknown, env: NodeJS.ProcessEnv): { doc: unknown; from: Map<string, string> } {
  const from = new Map<string, string>();
  if (!isPlainObject(doc)) return { doc, from };
  let out: Record<string, unknown> = doc;
  for (const { variable, path } of ENV_OVERRIDES) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    out = withValue(out, path, value);
    from.set(path.join('.'), variable);
  }
  return { doc: out, from };
}

function withValue(obj: Record<string, unknown>, path: readonly string[], value: string): Record<string, unknown> {
  const [head, ...rest] = path;
  if (rest.length === 0) return { ...obj, [head]: value };
  const inner = obj[head];
  // A setting the file holds as something other than a mapping is left for the schema to report.
  if (inner !== undefined && inner !== null && !isPlainObject(inner)) return obj;
  return { ...obj, [head]: withValue(isPlainObject(inner) ? inner : {}, rest, value) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
