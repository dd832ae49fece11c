// Who acts in an admin request: the principal the sign-in found (an admin token, a signed-in user), attached
// to the request once, read by the role check, the audit trail and the operations. The CLI acts as itself.
import type { IncomingMessage } from 'node:http';
import { userInfo } from 'node:os';
import type { AdminRole } from '../../core/config-types.ts';

export type Role = AdminRole;

export interface Principal {
  /** `token`: `admin_token` or a named `admin_tokens` entry; `user`: signed in with OIDC; `cli`: `modelgate …`. */
  kind: 'token' | 'user' | 'cli';
  /** The token's name (`admin_token` for the single token), the user's e-mail or subject, or the OS user. */
  name: string;
  role: Role;
  /** The team a team administrator manages. */
  team?: string;
}

const PRINCIPALS = new WeakMap<IncomingMessage, Principal>();

/** The principal of `admin_token:`: an administrator. */
export const ADMIN_TOKEN_PRINCIPAL: Principal = Object.freeze({ kind: 'token', name: 'admin_token', role: 'admin' });

/** The operator running the CLI on the gateway's host: it holds the database, so it is an administrator. */
export function cliActor(): Principal {
  let name = process.env.USER ?? 'cli';
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the environment's name stands.
  }
  return { kind: 'cli', name, role: 'admin' };
}

/** Set once, by the admin API's sign-in, before any route runs. */
export function setActor(req: IncomingMessage, principal: Principal): void {
  PRINCIPALS.set(req, principal);
}

/**
 * Who acts in `request`: the principal its sign-in attached; without a request (the CLI), the OS user. A
 * request the sign-in did not pass has no principal: asking is a programming error, so it throws.
 */
export function actorOf(request?: IncomingMessage | null): Principal {
  if (request === undefined || request === null) return cliActor();
  const principal = PRINCIPALS.get(request);
  if (principal === undefined) throw new Error('actorOf: this request has not passed the admin sign-in');
  return principal;
}

const RANK: Readonly<Record<Role, number>> = { viewer: 0, team_admin: 1, admin: 2 };

/** Whether `role` reaches `needed` (administrator ⊃ team administrator ⊃ viewer). */
export function reaches(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** The highest of several roles; null for none. */
export function highestRole(roles: Iterable<Role>): Role | null {
  let best: Role | null = null;
  for (const r of roles) if (best === null || RANK[r] > RANK[best]) best = r;
  return best;
}
