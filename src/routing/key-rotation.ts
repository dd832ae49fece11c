// A provider's API keys handed out in turn (round robin per provider), minus keys the upstream refused;
// a refused key is tried again on a timer (60 s doubling to 15 min by default) and put back when it works.
import type { ProviderConfig } from '../core/config-types.ts';
import { maskKey } from '../core/mask-secrets.ts';

/** A key the upstream refused (401): out of rotation until `retryAt`, then offered to one request. */
interface Refused {
  retryAt: number;
  delayMs: number;
}

interface ProviderKeys {
  cursor: number;
  rejected: Map<string, Refused>;
}

export interface KeyRotationOptions {
  /** Monotonic ms; default `performance.now()`. */
  now?: () => number;
  /** First wait before a refused key is tried again (default 60 s); doubles on each refusal after. */
  retryMs?: number;
  /** Cap on the doubled wait (default 15 min). */
  maxRetryMs?: number;
}

export class KeyRotation {
  readonly #providers = new Map<string, ProviderKeys>();
  readonly #now: () => number;
  readonly #retryMs: number;
  readonly #maxRetryMs: number;

  constructor(options: KeyRotationOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#retryMs = options.retryMs ?? 60_000;
    this.#maxRetryMs = Math.max(this.#retryMs, options.maxRetryMs ?? 900_000);
  }

  /** The wait before a refused key is first tried again, for the log line that says so. */
  get firstRetryMs(): number {
    return this.#retryMs;
  }

  #state(providerName: string): ProviderKeys {
    let state = this.#providers.get(providerName);
    if (state === undefined) {
      state = { cursor: 0, rejected: new Map() };
      this.#providers.set(providerName, state);
    }
    return state;
  }

  /**
   * False when the provider has keys but the upstream refused all of them and none is due to be tried
   * again yet. Keyless providers (mock) are usable.
   */
  usable(provider: ProviderConfig): boolean {
    if (provider.apiKeys.length === 0) return true;
    const rejected = this.#providers.get(provider.name)?.rejected;
    if (rejected === undefined || rejected.size === 0) return true;
    const now = this.#now();
    return provider.apiKeys.some((key) => {
      const refused = rejected.get(key);
      return refused === undefined || refused.retryAt <= now;
    });
  }

  /**
   * The next key for this provider; null for keyless providers and when every key was refused and
   * none is due again (check `usable()` to tell the two apart). With no good key left, a refused key
   * whose wait is over goes to this one request, and waits again until its outcome is known.
   */
  next(provider: ProviderConfig): string | null {
    const keys = provider.apiKeys;
    if (keys.length === 0) return null;
    const state = this.#state(provider.name);
    for (let tried = 0; tried < keys.length; tried++) {
      const key = keys[state.cursor % keys.length];
      state.cursor = (state.cursor + 1) % keys.length;
      if (!state.rejected.has(key)) return key;
    }
    const now = this.#now();
    for (const key of keys) {
      const refused = state.rejected.get(key);
      if (refused !== undefined && refused.retryAt <= now) {
        refused.retryAt = now + refused.delayMs;
        return key;
      }
    }
    return null;
  }

  /** Whether this key is out of rotation now (so a refusal is logged loudly only once). */
  isRejected(providerName: string, key: string): boolean {
    return this.#providers.get(providerName)?.rejected.has(key) ?? false;
  }

  /**
   * The upstream refused this key: out until its wait is over, the wait doubling on each refusal.
   * Returns how many keys the provider has left in rotation.
   */
  reject(provider: ProviderConfig, key: string): number {
    const state = this.#state(provider.name);
    const now = this.#now();
    const refused = state.rejected.get(key);
    if (refused === undefined) state.rejected.set(key, { retryAt: now + this.#retryMs, delayMs: this.#retryMs });
    else {
      refused.delayMs = Math.min(refused.delayMs * 2, this.#maxRetryMs);
      refused.retryAt = now + refused.delayMs;
    }
    return provider.apiKeys.filter((k) => !state.rejected.has(k)).length;
  }

  /** The provider's keys the upstream refused, masked (the admin API shows them; the whole key never leaves). */
  refusedMasked(provider: ProviderConfig): string[] {
    const rejected = this.#providers.get(provider.name)?.rejected;
    return rejected === undefined ? [] : provider.apiKeys.filter((k) => rejected.has(k)).map(maskKey);
  }

  /** An attempt with this key got an answer: a refused key is back in rotation. True when it was out. */
  accepted(providerName: string, key: string): boolean {
    const rejected = this.#providers.get(providerName)?.rejected;
    return rejected !== undefined && rejected.size > 0 && rejected.delete(key);
  }

  /** How long until a refused key of this provider may be tried again; 0 when one is due or none is refused. */
  retryInMs(provider: ProviderConfig): number {
    const rejected = this.#providers.get(provider.name)?.rejected;
    if (rejected === undefined || rejected.size === 0) return 0;
    let soonest = Infinity;
    for (const refused of rejected.values()) soonest = Math.min(soonest, refused.retryAt);
    return Math.max(0, soonest - this.#now());
  }

  /** Operator action: bring refused keys back, for one provider or all. */
  reset(providerName?: string): void {
    if (providerName === undefined) this.#providers.clear();
    else this.#providers.delete(providerName);
  }
}
