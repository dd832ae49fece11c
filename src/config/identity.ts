// The identity, alert and body-log blocks of the config (`admin_tokens:`, `oidc:`, `alerts:`, `body_log:`) as
// the gateway reads them.
import { hash } from 'node:crypto';
import type { AdminTokenConfig, AlertsConfig, BodyLogConfig, GatewayConfig, OidcConfig } from '../core/config-types.ts';
import type { RawConfig } from './schema.ts';

const DEFAULT_THRESHOLDS = [50, 80, 100];
const DAY_MS = 86_400_000;
/** A working day: a signed-in session lasts this long unless `session_ttl_s` says otherwise. */
const DEFAULT_SESSION_S = 8 * 3600;

export function identityOf(raw: RawConfig): Pick<GatewayConfig, 'adminTokens' | 'oidc' | 'alerts' | 'bodyLog'> {
  return { adminTokens: adminTokensOf(raw), oidc: oidcOf(raw), alerts: alertsOf(raw), bodyLog: bodyLogOf(raw) };
}

/** A week, and 64 kB a body: enough to read an incident's request, not a second copy of the traffic. */
const BODY_LOG_DAYS = 7;
const BODY_LOG_BYTES = 64 * 1024;

function bodyLogOf(raw: RawConfig): BodyLogConfig | null {
  const b = raw.body_log;
  if (b === undefined || ((b.keys ?? []).length === 0 && (b.teams ?? []).length === 0)) return null;
  return {
    keys: b.keys ?? [],
    teams: b.teams ?? [],
    retentionMs: (b.retention_days ?? BODY_LOG_DAYS) * DAY_MS,
    maxBytes: b.max_bytes ?? BODY_LOG_BYTES,
  };
}

function adminTokensOf(raw: RawConfig): AdminTokenConfig[] {
  const seen = new Set<string>();
  return (raw.admin_tokens ?? []).map((t, i) => {
    if (seen.has(t.name)) throw new Error(`admin_tokens[${i}].name: "${t.name}" is configured twice`);
    seen.add(t.name);
    // Only the digest is kept: the token itself is compared by its hash, like API keys.
    const digest = t.token_hash ?? hash('sha256', t.token ?? '', 'hex');
    return { name: t.name, hash: digest, role: t.role, ...(t.team === undefined ? {} : { team: t.team }) };
  });
}

function oidcOf(raw: RawConfig): OidcConfig | null {
  const o = raw.oidc;
  if (o === undefined) return null;
  return {
    issuer: o.issuer,
    clientId: o.client_id,
    clientSecret: o.client_secret || null,
    groupsClaim: o.groups_claim ?? 'groups',
    teamClaim: o.team_claim ?? 'team',
    roles: { admin: o.roles?.admin ?? [], team_admin: o.roles?.team_admin ?? [], viewer: o.roles?.viewer ?? [] },
    redirectUri: o.redirect_uri ?? null,
    scopes: o.scopes ?? ['openid', 'profile', 'email'],
    sessionSecret: o.session_secret ?? null,
    sessionTtlMs: (o.session_ttl_s ?? DEFAULT_SESSION_S) * 1000,
  };
}

function alertsOf(raw: RawConfig): AlertsConfig | null {
  const a = raw.alerts;
  if (a === undefined || a.webhooks.length === 0) return null;
  return {
    webhooks: a.webhooks.map((w) => ({ url: w.url, events: [...new Set(w.events)], format: w.format ?? 'json' })),
    budgetThresholds: [...new Set(a.budget_thresholds ?? DEFAULT_THRESHOLDS)].sort((x, y) => x - y),
    keyExpiringMs: (a.key_expiring_days ?? 7) * DAY_MS,
  };
}
