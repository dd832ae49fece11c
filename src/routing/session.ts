// Agent sessions: which session a request belongs to, and the deployment a session sticks to. A session
// is named by the client's own header (Claude Code's `X-Claude-Code-Session-Id`, Codex's `session_id`,
// older Codex's `conversation_id`) or else the request's `prompt_cache_key`. Requests of one session go
// to one deployment while it is healthy, so the provider's prompt cache stays warm: weighted rendezvous
// hashing over the candidates — stable per session, each deployment's share of sessions in proportion to
// its weight, and a deployment that drops out moves only the sessions that were on it.
import type { IncomingHttpHeaders } from 'node:http';
import type { DeploymentConfig } from '../core/config-types.ts';

/** Longer ids are cut: a usage row keeps a bounded name. */
const MAX_SESSION_CHARS = 128;
const SESSION_HEADERS = ['x-claude-code-session-id', 'session_id', 'conversation_id'] as const;

function clean(v: string): string | null {
  if (v === '') return null;
  const cut = v.length > MAX_SESSION_CHARS ? v.slice(0, MAX_SESSION_CHARS) : v;
  // Control characters would forge lines in `modelgate usage` and the CSV.
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(cut)
    ? cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?')
    : cut;
}

/** The request's session id: a session header first, else the body's `prompt_cache_key`; null when none. */
export function sessionIdOf(headers: IncomingHttpHeaders, body: unknown): string | null {
  for (const name of SESSION_HEADERS) {
    const v = headers[name];
    if (typeof v === 'string') return clean(v);
  }
  const key = (body as { prompt_cache_key?: unknown } | null)?.prompt_cache_key;
  return typeof key === 'string' ? clean(key) : null;
}

/** The prompt_cache_key translated requests send OpenAI-style upstreams: the caller's, else the session's. */
export function promptCacheKeyOf(body: unknown, session: string | null): string | undefined {
  const key = (body as { prompt_cache_key?: unknown } | null)?.prompt_cache_key;
  if (typeof key === 'string') return key;
  return session ?? undefined;
}

/** FNV-1a over the session and the deployment, mixed, as a number in (0, 1). */
function unitHash(session: string, deployment: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < session.length; i++) h = Math.imul(h ^ session.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0xff, 0x01000193);
  for (let i = 0; i < deployment.length; i++) h = Math.imul(h ^ deployment.charCodeAt(i), 0x01000193);
  // Final avalanche (murmur3's fmix32): FNV's low bits alone spread poorly.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 0) + 0.5) / 4294967296;
}

/** The session's deployment among these (one priority tier): weighted rendezvous hashing. */
export function sessionPick(session: string, deployments: readonly DeploymentConfig[]): DeploymentConfig {
  let best = deployments[0];
  let bestScore = Infinity;
  for (const d of deployments) {
    if (d.weight <= 0) continue;
    const score = -Math.log(unitHash(session, d.id)) / d.weight;
    if (score < bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}
