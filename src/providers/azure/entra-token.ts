// A Microsoft Entra ID bearer token for Azure OpenAI, fetched by @azure/identity and kept: every request
// reuses it until five minutes before it expires; then one refresh starts while the old token still
// serves, so no request waits for a token except the first and one after a token has run out.
import type { AccessToken, TokenCredential } from '@azure/identity';

/** The audience of Azure OpenAI (Cognitive Services) tokens. */
export const AZURE_OPENAI_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** A token is refreshed this long before it expires. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

/** An old token is not sent in its last seconds: a request in flight must still arrive before it expires. */
const LAST_USE_BEFORE_MS = 30_000;

export class EntraToken {
  readonly #credential: () => Promise<TokenCredential>;
  readonly #now: () => number;
  #made: TokenCredential | null = null;
  /** `Bearer …`, or null before the first token. */
  #header: string | null = null;
  #refreshAt = 0;
  #expiresAt = 0;
  #pending: Promise<string> | null = null;

  /** `credential` makes the @azure/identity credential on first use (the library loads only then). */
  constructor(credential: () => Promise<TokenCredential>, now: () => number = Date.now) {
    this.#credential = credential;
    this.#now = now;
  }

  /**
   * The Authorization header value: at once while the token is fresh, or while a refresh is under way
   * and the old one has time left; else the refresh to wait for (which rejects if Entra ID refuses).
   */
  header(): string | Promise<string> {
    const now = this.#now();
    if (this.#header !== null && now < this.#refreshAt) return this.#header;
    const pending = this.#pending ?? this.#refresh();
    if (this.#header !== null && now < this.#expiresAt - LAST_USE_BEFORE_MS) return this.#header;
    return pending;
  }

  #refresh(): Promise<string> {
    const pending = this.#requestToken().finally(() => {
      this.#pending = null;
    });
    // A refresh nobody waits for must not become an unhandled rejection; the next request tries again.
    pending.catch(() => undefined);
    this.#pending = pending;
    return pending;
  }

  async #requestToken(): Promise<string> {
    this.#made ??= await this.#credential();
    const token: AccessToken | null = await this.#made.getToken(AZURE_OPENAI_SCOPE);
    if (token === null) throw new Error('Microsoft Entra ID returned no token for Azure OpenAI');
    this.#header = `Bearer ${token.token}`;
    this.#expiresAt = token.expiresOnTimestamp;
    this.#refreshAt = token.expiresOnTimestamp - REFRESH_BEFORE_MS;
    return this.#header;
  }
}
