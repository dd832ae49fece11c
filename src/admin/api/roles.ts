// Which role each admin route needs: one table, read by the admin API before any route runs. The first
// rule whose method and path match decides; a path no rule names needs an administrator, so a new route
// is closed until it is placed here. `team`: a team administrator reaches it for its own team only (the
// admin API checks the key or team the request names; docs/admin.md, "Roles").
import type { Role } from './actor.ts';

export interface RoleRule {
  /** An HTTP method, or `*` for any. */
  method: string;
  /** Path segments after `/admin/`; `*` matches one segment. */
  path: readonly string[];
  role: Role;
  team?: true;
}

const rule = (method: string, path: string, role: Role, team?: true): RoleRule => ({
  method,
  path: path.split('/'),
  role,
  ...(team === undefined ? {} : { team }),
});

export const ROLE_RULES: readonly RoleRule[] = [
  rule('GET', 'me', 'viewer'),
  rule('GET', 'openapi.json', 'viewer'),
  // Keys: everyone reads (a team administrator its own team's); a team administrator changes its team's.
  rule('GET', 'keys', 'viewer'),
  rule('GET', 'keys/*', 'viewer'),
  rule('POST', 'keys', 'team_admin', true),
  rule('PATCH', 'keys/*', 'team_admin', true),
  rule('DELETE', 'keys/*', 'team_admin', true),
  rule('POST', 'keys/*/*', 'team_admin', true),
  // Reports: reading usage and requests is what a viewer (finance, a team lead) is for.
  rule('GET', 'usage', 'viewer'),
  rule('GET', 'requests', 'viewer'),
  rule('GET', 'requests/*', 'viewer'),
  rule('POST', 'reconcile', 'viewer'),
  rule('GET', 'deployments', 'viewer'),
  rule('GET', 'mcp/servers', 'viewer'),
  rule('GET', 'alerts', 'viewer'),
  rule('GET', 'teams', 'viewer'),
  rule('GET', 'teams/*', 'viewer'),
  // The models served; providers (their settings name credentials) stay an administrator's.
  rule('GET', 'models', 'viewer'),
  rule('GET', 'models/*', 'viewer'),
];

/** The rule for a request, or null: then only an administrator may. HEAD is read as GET. */
export function ruleFor(method: string, segments: readonly string[]): RoleRule | null {
  const m = method === 'HEAD' ? 'GET' : method;
  for (const r of ROLE_RULES) {
    if (r.method !== '*' && r.method !== m) continue;
    if (r.path.length !== segments.length) continue;
    if (r.path.every((p, i) => p === '*' || p === segments[i])) return r;
  }
  return null;
}
