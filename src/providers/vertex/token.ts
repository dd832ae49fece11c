// Google access tokens for Vertex AI, from google-auth-library: a service-account JSON file named in the
// config, else application default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's user
// credentials, workload identity federation, the metadata server). The library's service-account client
// always posts its signed assertion to Google's fixed token URL; a file's `token_uri` (a private or
// test endpoint) is honoured by sending that one request where the file says instead. The client keeps
// the token and fetches a new one before it expires (its eager-refresh window). Tokens and keys never
// leave this module except as the Bearer header's value.
import { readFile } from 'node:fs/promises';
import type { JWT } from 'google-auth-library';

// The library (and its HTTP stack) loads with the first Vertex token asked for, not with every gateway.
const googleAuth = () => import('google-auth-library');

const SCOPES = ['https://www.googleapis.com/auth/cloud-platform'];
/** Where google-auth-library's service-account client sends its assertion. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** A token is replaced this long before it expires. */
const REFRESH_BEFORE_MS = 5 * 60 * 1000;

/** Yields a current access token; `expiresAt` is when the last one yielded expires (ms since the epoch), where known. */
export interface TokenSource {
  (): Promise<string>;
  expiresAt?: () => number | undefined;
}

interface ServiceAccountFile {
  type: 'service_account';
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

function isServiceAccount(v: unknown): v is ServiceAccountFile {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return o.type === 'service_account' && typeof o.client_email === 'string' && typeof o.private_key === 'string';
}

/** A service-account client whose token exchange goes to the file's `token_uri`. */
async function serviceAccountClient(sa: ServiceAccountFile): Promise<JWT> {
  const { JWT } = await googleAuth();
  const client = new JWT({
    email: sa.client_email,
    key: sa.private_key,
    keyId: sa.private_key_id,
    scopes: SCOPES,
    eagerRefreshThresholdMillis: REFRESH_BEFORE_MS,
  });
  const tokenUri = sa.token_uri;
  if (tokenUri !== undefined && tokenUri !== GOOGLE_TOKEN_URL) {
    client.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (String(config.url) === GOOGLE_TOKEN_URL) config.url = new URL(tokenUri);
        return config;
      },
    });
  }
  return client;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    // The file's contents are credentials: the message names the path only.
    throw new Error(`cannot read the credentials file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'not JSON'}`);
  }
}

/**
 * The token source of a `credentials_file` (or, when absent, application default credentials). A
 * service-account file (also the one GOOGLE_APPLICATION_CREDENTIALS names) gets its `token_uri` honoured;
 * any other kind of file is left to google-auth-library.
 */
export async function vertexTokenSource(
  credentialsFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TokenSource> {
  const path = credentialsFile ?? env.GOOGLE_APPLICATION_CREDENTIALS;
  if (path !== undefined && path !== '') {
    const parsed = await readJson(path);
    if (isServiceAccount(parsed)) return sourceOf(await serviceAccountClient(parsed));
    const { GoogleAuth } = await googleAuth();
    const auth = new GoogleAuth({ keyFilename: path, scopes: SCOPES });
    return sourceOf(await auth.getClient());
  }
  const { GoogleAuth } = await googleAuth();
  const auth = new GoogleAuth({ scopes: SCOPES });
  return sourceOf(await auth.getClient());
}

function sourceOf(client: {
  getAccessToken(): Promise<{ token?: string | null }>;
  credentials?: { expiry_date?: number | null };
}): TokenSource {
  const source: TokenSource = async () => {
    const { token } = await client.getAccessToken();
    if (typeof token !== 'string' || token === '') throw new Error('Google credentials yielded no access token');
    return token;
  };
  source.expiresAt = () => client.credentials?.expiry_date ?? undefined;
  return source;
}
