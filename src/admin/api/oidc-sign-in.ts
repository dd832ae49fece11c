// Sign-in with an OpenID Connect provider (authorization code flow with PKCE, by openid-client, loaded on
// the first sign-in): GET /auth/login sends the browser to the provider, GET /auth/callback takes the code
// back, maps the user's groups to a role and sets a signed session cookie; GET /auth/logout clears it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import type { AdminRole, OidcConfig } from '../../core/config-types.ts';
import type { Logger } from '../../observability/logger.ts';
import { highestRole, type Principal } from './actor.ts';
import { CookieSigner, cookieValue, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from './session-cookie.ts';

type Client = typeof import('openid-client');
type Configuration = import('openid-client').Configuration;

/** The provider's login page and the way back must fit in this; an abandoned sign-in is then forgotten. */
const SIGN_IN_TTL_S = 600;

interface SignInState {
  verifier: string;
  state: string;
  nonce: string;
  redirect: string;
}

interface SessionPayload {
  sub: string;
  name: string;
  role: AdminRole;
  team?: string;
}

export interface OidcSignIn {
  /** Serves /auth/login, /auth/callback and /auth/logout. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): void;
  /** The signed-in user of a request with a valid session cookie; null otherwise. */
  principalOf(req: IncomingMessage): Principal | null;
}

export function createOidcSignIn(oidc: OidcConfig, log: Pick<Logger, 'warn' | 'info'>): OidcSignIn {
  const signer = new CookieSigner(sessionSecret(oidc));
  let discovered: Promise<{ client: Client; config: Configuration }> | null = null;
  const provider = (): Promise<{ client: Client; config: Configuration }> => {
    discovered ??= discover(oidc).catch((err: unknown) => {
      // The next sign-in tries again: a provider down at one moment is not down for good.
      discovered = null;
      throw err;
    });
    return discovered;
  };

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { client, config } = await provider();
    const s: SignInState = {
      verifier: client.randomPKCECodeVerifier(),
      state: client.randomState(),
      nonce: client.randomNonce(),
      redirect: redirectUri(oidc, req),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: s.redirect,
      scope: oidc.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(s.verifier),
      code_challenge_method: 'S256',
      state: s.state,
      nonce: s.nonce,
    });
    res.writeHead(302, {
      location: url.href,
      'set-cookie': setCookie(SIGN_IN_COOKIE, signer.sign(s, Date.now() + SIGN_IN_TTL_S * 1000), {
        path: '/auth/',
        maxAgeS: SIGN_IN_TTL_S,
        sameSite: 'Lax',
      }),
      'cache-control': 'no-store',
      'content-length': 0,
    });
    res.end();
  }

  async function callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const s = signer.verify<SignInState>(cookieValue(req.headers.cookie, SIGN_IN_COOKIE), Date.now());
    if (s === null) return page(res, 400, 'The sign-in expired or was not started here: start again at /auth/login.');
    const { client, config } = await provider();
    const current = new URL(req.url ?? '/', s.redirect);
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: s.verifier,
        expectedState: s.state,
        expectedNonce: s.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      // Providers that keep groups out of the ID token (oidc-provider by default, Keycloak by mapper) serve them at userinfo.
      if (claims[oidc.groupsClaim] === undefined)
        claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    } catch (err) {
      log.warn({ err: String(err) }, 'OIDC sign-in failed at the provider');
      return page(res, 401, 'The identity provider did not confirm the sign-in: start again at /auth/login.');
    }
    const user = userOf(oidc, claims);
    if (user === null) {
      log.warn({ sub: claims.sub }, 'OIDC sign-in refused: none of the user’s groups has a role (oidc.roles)');
      return page(res, 403, 'You are signed in at the identity provider, but none of your groups has a role here.');
    }
    log.info({ user: user.name, role: user.role, team: user.team }, 'signed in with OIDC');
    res.writeHead(302, {
      location: '/ui/',
      'set-cookie': [
        setCookie(SESSION_COOKIE, signer.sign(user, Date.now() + oidc.sessionTtlMs), {
          path: '/',
          maxAgeS: Math.floor(oidc.sessionTtlMs / 1000),
          sameSite: 'Strict',
        }),
        setCookie(SIGN_IN_COOKIE, '', { path: '/auth/', maxAgeS: 0, sameSite: 'Lax' }),
      ],
      'cache-control': 'no-store',
      'content-length': 0,
    });
    res.end();
  }

  return {
    handle(req, res, path, requestId) {
      req.resume();
      res.setHeader('x-request-id', requestId);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET');
        return page(res, 405, `${req.method} is not allowed here; use GET.`);
      }
      let done: Promise<void>;
      if (path === '/auth/login') done = login(req, res);
      else if (path === '/auth/callback') done = callback(req, res);
      else if (path === '/auth/logout') {
        res.setHeader('set-cookie', setCookie(SESSION_COOKIE, '', { path: '/', maxAgeS: 0, sameSite: 'Strict' }));
        return page(res, 200, 'Signed out.');
      } else return page(res, 404, 'No such sign-in route: /auth/login, /auth/callback, /auth/logout.');
      done.catch((err: unknown) => {
        log.warn({ err: String(err), issuer: oidc.issuer }, 'OIDC sign-in failed: the provider could not be reached');
        if (!res.headersSent) page(res, 502, 'The identity provider could not be reached; try again shortly.');
        else res.destroy();
      });
    },
    principalOf(req) {
      const s = signer.verify<SessionPayload>(cookieValue(req.headers.cookie, SESSION_COOKIE), Date.now());
      if (s === null) return null;
      return { kind: 'user', name: s.name, role: s.role, ...(s.team === undefined ? {} : { team: s.team }) };
    },
  };
}

async function discover(oidc: OidcConfig): Promise<{ client: Client; config: Configuration }> {
  const client = await import('openid-client');
  const issuer = new URL(oidc.issuer);
  // Plain http only to this machine (a provider in a test or beside the gateway); elsewhere TLS is required.
  const local = issuer.protocol === 'http:' && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(issuer.hostname);
  const config = await client.discovery(
    issuer,
    oidc.clientId,
    oidc.clientSecret ?? undefined,
    oidc.clientSecret === null ? client.None() : undefined,
    local ? { execute: [client.allowInsecureRequests] } : undefined,
  );
  return { client, config };
}

/** The user's role from the groups claim, and the team from the team claim; null when no group has a role. */
export function userOf(oidc: OidcConfig, claims: Record<string, unknown>): SessionPayload | null {
  const raw = claims[oidc.groupsClaim];
  const groups = new Set(Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(/[\s,]+/) : []);
  const granted: AdminRole[] = [];
  for (const role of ['admin', 'team_admin', 'viewer'] as const)
    if (oidc.roles[role].some((g) => groups.has(g))) granted.push(role);
  const role = highestRole(granted);
  if (role === null) return null;
  const teamClaim = claims[oidc.teamClaim];
  const team = typeof teamClaim === 'string' && teamClaim !== '' ? teamClaim : undefined;
  // A team administrator without a team would manage nothing: it reads as a viewer.
  const effective = role === 'team_admin' && team === undefined ? 'viewer' : role;
  const name = [claims.email, claims.preferred_username, claims.name, claims.sub].find(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  return {
    sub: String(claims.sub),
    name: name ?? 'unknown',
    role: effective,
    ...(effective === 'team_admin' ? { team } : {}),
  };
}

function redirectUri(oidc: OidcConfig, req: IncomingMessage): string {
  if (oidc.redirectUri !== null) return oidc.redirectUri;
  const host = req.headers.host ?? '127.0.0.1';
  const proto = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}/auth/callback`;
}

/** The configured secret; else one derived from the client secret (the same on every replica); else random. */
function sessionSecret(oidc: OidcConfig): Buffer {
  if (oidc.sessionSecret !== null) return Buffer.from(oidc.sessionSecret);
  if (oidc.clientSecret !== null)
    return createHmac('sha256', oidc.clientSecret).update('modelgate session cookies').digest();
  return randomBytes(32);
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(`${text}\n`);
}
