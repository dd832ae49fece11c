// OAuth 2.0 client credentials for a remote MCP server (`oauth:` on its `mcp_servers` entry): the gateway
// asks the token endpoint for an access token, keeps it until shortly before it expires, and asks again
// then or when the server refuses it (401). The client secret and the tokens stay in the gateway: they
// go to the token endpoint and to the MCP server, never into a reply, a log line or the admin API.
import { request } from 'undici';
import type { McpOAuthConfig } from '../core/config-types.ts';

/** A token this close to its expiry is replaced before use, so a call never carries one that lapses on the way. */
const EARLY_REFRESH_MS = 60_000;
/** A token response without `expires_in` is kept this long. */
const DEFAULT_LIFETIME_MS = 300_000;

export class ClientCredentials {
  readonly #config: McpOAuthConfig;
  readonly #timeoutMs: number;
  #token: { value: string; expiresAt: number } | null = null;
  /** One request for a token at a time: concurrent calls share it. */
  #pending: Promise<string> | null = null;

  constructor(config: McpOAuthConfig, timeoutMs: number) {
    this.#config = config;
    this.#timeoutMs = timeoutMs;
  }

  /** A valid access token: the cached one, or a new one from the token endpoint. */
  async token(now = Date.now()): Promise<string> {
    const t = this.#token;
    if (t !== null && now < t.expiresAt - EARLY_REFRESH_MS) return t.value;
    this.#pending ??= this.#requestToken().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /** The server refused `value`: the next call asks for a new token (unless another already did). */
  invalidate(value: string): void {
    if (this.#token?.value === value) this.#token = null;
  }

  async #requestToken(): Promise<string> {
    const c = this.#config;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (c.scope !== undefined) form.set('scope', c.scope);
    // client_secret_basic (RFC 6749 §2.3.1): id and secret form-encoded, then Basic.
    const basic = Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString(
      'base64',
    );
    const res = await request(c.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
    const text = await res.body.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: reported below by status
    }
    if (res.statusCode !== 200 || typeof body.access_token !== 'string') {
      // The endpoint's own error code and description, never the request (it holds the secret).
      const why =
        typeof body.error === 'string'
          ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`
          : `HTTP ${res.statusCode}`;
      throw new Error(`the OAuth token endpoint refused the client credentials (${why})`);
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    this.#token = { value: body.access_token, expiresAt: Date.now() + lifetimeMs };
    return body.access_token;
  }
}
