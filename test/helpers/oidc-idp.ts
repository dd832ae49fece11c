// A local OpenID Connect provider for sign-in tests (the `oidc-provider` package): one confidential client,
// users given per test, and a login step that signs in whoever the test names next, with no form to fill.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import Provider from 'oidc-provider';

export interface IdpUser {
  email: string;
  groups: string[];
  team?: string;
}

export interface LocalIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the gateway's callback (known once the gateway listens) and starts answering. */
  ready(redirectUri: string): void;
  /** The user the next login signs in. */
  nextUser(id: string, user: IdpUser): void;
  close(): Promise<void>;
}

export async function startLocalIdp(): Promise<LocalIdp> {
  let provider: Provider | null = null;
  const users = new Map<string, IdpUser>();
  let next = '';
  const server: Server = createServer((req, res) => {
    if (provider === null) {
      res.writeHead(503).end();
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, req, res, next).catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
      return;
    }
    provider.callback()(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const clientId = 'modelgate';
  const clientSecret = 'idp-client-secret-0123456789abcdefghijkl';
  return {
    issuer,
    clientId,
    clientSecret,
    ready(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
          },
        ],
        // Groups and team are profile claims, served at userinfo (the ID token holds only what the spec
        // puts there): the gateway has to ask userinfo for them, as with many real providers.
        claims: { openid: ['sub'], email: ['email'], profile: ['groups', 'team', 'name'] },
        cookies: { keys: ['idp-cookie-key-0123456789'] },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        async findAccount(_ctx, id) {
          const user = users.get(id);
          if (user === undefined) return undefined;
          return {
            accountId: id,
            async claims() {
              return { sub: id, email: user.email, name: user.email, groups: user.groups, team: user.team };
            },
          };
        },
      });
    },
    nextUser(id, user) {
      users.set(id, user);
      next = id;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Signs `accountId` in and grants what the client asked for, in one step. */
async function finishInteraction(
  provider: Provider,
  req: Parameters<Provider['interactionDetails']>[0],
  res: Parameters<Provider['interactionDetails']>[1],
  accountId: string,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    {
      mergeWithLastSubmission: false,
    },
  );
}

/**
 * A browser's walk through a sign-in: follows redirects by hand across the gateway and the provider,
 * keeping each origin's cookies, until it is sent to `stopAt`. Returns every Set-Cookie the gateway sent
 * on the way, and the last answer.
 */
export async function browse(
  start: string,
  stopAt: (url: URL) => boolean,
): Promise<{ url: URL; status: number; text: string; cookies: Map<string, string>; setCookies: string[] }> {
  const jars = new Map<string, Map<string, string>>();
  const setCookies: string[] = [];
  let url = new URL(start);
  const gatewayOrigin = url.origin;
  for (let hop = 0; hop < 20; hop++) {
    const jar = jars.get(url.origin) ?? new Map<string, string>();
    jars.set(url.origin, jar);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      if (url.origin === gatewayOrigin) setCookies.push(c);
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0\b/i.test(c)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.arrayBuffer();
      url = new URL(location, url);
      if (stopAt(url))
        return { url, status: res.status, text: '', cookies: jars.get(gatewayOrigin) ?? new Map(), setCookies };
      continue;
    }
    return {
      url,
      status: res.status,
      text: await res.text(),
      cookies: jars.get(gatewayOrigin) ?? new Map(),
      setCookies,
    };
  }
  throw new Error('too many redirects');
}
