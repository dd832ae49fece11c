// An Azure OpenAI resource and a Microsoft Entra ID token endpoint, for end-to-end tests of kind azure.
// The resource checks what Azure checks (the path of its api_version's style, `api-version`, and an
// `api-key` or a Bearer token the mock Entra ID issued) and forwards what passes to the OpenAI mock
// upstream, whose answers it relays as they come. The token endpoint speaks the OAuth 2.0 client
// credentials grant over HTTPS (MSAL refuses any other authority), with a self-signed certificate the
// gateway is told to trust through NODE_EXTRA_CA_CERTS.
//
//   const az = await startMockAzure({ upstream: up, apiKey: 'k', clientSecret: 's' });
//   startGateway({ configYaml, env: { NODE_EXTRA_CA_CERTS: az.caFile } });
//   az.requests.at(-1)  // { path, apiVersion, deployment, auth: 'api-key' | 'bearer', token, … }
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockUpstream } from './mock-upstream-types.ts';

export const AZURE_SCOPE = 'https://cognitiveservices.azure.com/.default';

export interface AzureRequest {
  /** Path without the query. */
  path: string;
  /** The `api-version` query parameter, or null. */
  apiVersion: string | null;
  /** The deployment named in a deployment path, or null (v1 paths and Responses name it in the body). */
  deployment: string | null;
  /** Which credential came, and the Bearer token if one did. */
  auth: 'api-key' | 'bearer' | 'none';
  token: string | null;
  /** The status the mock answered with itself (401, 404, 400), or null when it forwarded the request. */
  refused: number | null;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TokenRequest {
  tenant: string;
  clientId: string;
  scope: string;
  /** The token issued, or null when the request was refused. */
  token: string | null;
}

export interface MockAzure {
  /** The resource's endpoint: a provider's `base_url`. */
  url: string;
  /** The Entra ID authority host: `entra_id.authority_host`. */
  authorityHost: string;
  /** The certificate of the authority, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  readonly requests: AzureRequest[];
  readonly tokenRequests: TokenRequest[];
  /** Seconds a token issued to this client id lives (default 3600). */
  setTokenLifetime(clientId: string, seconds: number): void;
  /** Answer the next resource request with 400 and an error that echoes the credentials it was sent. */
  echoCredentialsOnce(): void;
  close(): Promise<void>;
}

const OPERATIONS = ['chat/completions', 'embeddings', 'responses'] as const;

export async function startMockAzure(opts: {
  upstream: MockUpstream;
  /** The resource's key; requests with another one are refused. */
  apiKey: string;
  /** The service principal's secret the token endpoint accepts. */
  clientSecret: string;
}): Promise<MockAzure> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-azure-'));
  const keyFile = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );

  const requests: AzureRequest[] = [];
  const tokenRequests: TokenRequest[] = [];
  const issued = new Set<string>();
  const lifetimes = new Map<string, number>();
  let echoNext = false;
  let tokenCount = 0;

  const entra = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (req, res) => {
    void readBody(req).then((body) => {
      const url = new URL(req.url ?? '/', authorityHost);
      const [, tenant, ...rest] = url.pathname.split('/');
      const tail = rest.join('/');
      if (req.method === 'GET' && tail === 'v2.0/.well-known/openid-configuration') {
        const base = `${authorityHost}/${tenant}`;
        return sendJson(res, 200, {
          token_endpoint: `${base}/oauth2/v2.0/token`,
          authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${base}/oauth2/v2.0/logout`,
          issuer: `${base}/v2.0`,
          jwks_uri: `${base}/discovery/v2.0/keys`,
          response_types_supported: ['code', 'token'],
        });
      }
      if (req.method === 'POST' && tail === 'oauth2/v2.0/token') {
        const form = new URLSearchParams(body);
        const clientId = form.get('client_id') ?? '';
        const scope = form.get('scope') ?? '';
        const ok =
          form.get('grant_type') === 'client_credentials' &&
          form.get('client_secret') === opts.clientSecret &&
          scope.split(' ').includes(AZURE_SCOPE);
        if (!ok) {
          tokenRequests.push({ tenant, clientId, scope, token: null });
          return sendJson(res, 401, {
            error: 'invalid_client',
            error_description: 'AADSTS7000215: Invalid client secret.',
          });
        }
        const token = `entra-token-${++tokenCount}-${clientId}`;
        issued.add(token);
        tokenRequests.push({ tenant, clientId, scope, token });
        const expiresIn = lifetimes.get(clientId) ?? 3600;
        return sendJson(res, 200, {
          token_type: 'Bearer',
          expires_in: expiresIn,
          ext_expires_in: expiresIn,
          access_token: token,
        });
      }
      sendJson(res, 404, { error: 'not_found' });
    });
  });

  const resource = createServer((req, res) => {
    void readBody(req).then((body) => {
      const url = new URL(req.url ?? '/', 'http://resource');
      const apiVersion = url.searchParams.get('api-version');
      const apiKey = header(req, 'api-key');
      const bearer = /^Bearer (.+)$/.exec(header(req, 'authorization') ?? '')?.[1] ?? null;
      const recorded: AzureRequest = {
        path: url.pathname,
        apiVersion,
        deployment: null,
        auth: apiKey !== undefined ? 'api-key' : bearer !== null ? 'bearer' : 'none',
        token: bearer,
        refused: null,
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      const refuse = (status: number, code: string, message: string): void => {
        recorded.refused = status;
        sendJson(res, status, { error: { code, message } });
      };
      const credentialOk = apiKey !== undefined ? apiKey === opts.apiKey : bearer !== null && issued.has(bearer);
      if (!credentialOk)
        return refuse(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint.');
      if (echoNext) {
        echoNext = false;
        return refuse(
          400,
          'BadRequest',
          `Rejected the request sent with api-key ${apiKey ?? '-'} and Authorization Bearer ${bearer ?? '-'}`,
        );
      }
      const operation = operationOf(url.pathname, apiVersion, recorded);
      if (operation === null) return refuse(404, '404', 'Resource not found');
      forward(opts.upstream, operation, req, body, res);
    });
  });

  const operationOf = (path: string, apiVersion: string | null, recorded: AzureRequest): string | null => {
    const v1 = /^\/openai\/v1\/(.+)$/.exec(path);
    if (v1 !== null) return (OPERATIONS as readonly string[]).includes(v1[1]) ? v1[1] : null;
    // The dated paths want their api-version.
    if (apiVersion === null || !/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(apiVersion)) return null;
    if (path === '/openai/responses') return 'responses';
    const dated = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(path);
    if (dated === null) return null;
    recorded.deployment = decodeURIComponent(dated[1]);
    return dated[2];
  };

  await listen(entra);
  await listen(resource);
  const authorityHost = `https://127.0.0.1:${(entra.address() as AddressInfo).port}`;
  return {
    url: `http://127.0.0.1:${(resource.address() as AddressInfo).port}`,
    authorityHost,
    caFile,
    requests,
    tokenRequests,
    setTokenLifetime: (clientId, seconds) => void lifetimes.set(clientId, seconds),
    echoCredentialsOnce: () => {
      echoNext = true;
    },
    close: async () => {
      await Promise.all([close(entra), close(resource)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The request to the OpenAI mock's own path for the operation; its answer relayed as it comes. */
function forward(
  upstream: MockUpstream,
  operation: string,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
): void {
  const target = new URL(`/v1/${operation}`, upstream.url);
  const out = httpRequest(
    target,
    { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
  out.end(body);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function listen(server: { listen: (port: number, host: string, cb: () => void) => unknown }): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

function close(server: { close: (cb: () => void) => unknown; closeAllConnections?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
