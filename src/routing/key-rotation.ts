// A provider's API keys handed out in turn (round robin per provider), minus keys the upstream refused.
import type { ProviderConfig } from '../core/config-types.ts';

interface ProviderKeys {
  cursor: number;
  /** Keys the upstream answered 401/403 for; out until `reset()` (operator action, config reload). */
  rejected: Set<string>;
}

/** Masked for logs: first 4 + last 4, never the whole key (preamble rule). */
export function maskApiKey(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export class KeyRotation {
  readonly #providers = new Map<string, ProviderKeys>();

  #state(providerName: string): ProviderKeys {
    let state = this.#providers.get(providerName);
    if (state === undefined) {
      state = { cursor: 0, rejected: new Set() };
      this.#providers.set(providerName, state);
    }
    return state;
  }

  /** False when the provider has keys but the upstream refused all of them. Keyless providers (mock) are usable. */
  usable(provider: ProviderConfig): boolean {
    if (provider.apiKeys.length === 0) return true;
    const rejected = this.#providers.get(provider.name)?.rejected;
    if (rejected === undefined || rejected.size === 0) return true;
    return provider.apiKeys.some((key) => !rejected.has(key));
  }

  /**
   * The next key for this provider; null for keyless providers and when every key was refused
   * (check `usable()` to tell the two apart).
   */
  next(provider: ProviderConfig): string | null {
    const keys = provider.apiKeys;
    if (keys.length === 0) return null;
    const state = this.#state(provider.name);
    for (let tried = 0; tried < keys.length; tried++) {
      // Modulo at read time: a config reload may have shortened the list.
      const key = keys[state.cursor % keys.length];
      state.cursor = (state.cursor + 1) % keys.length;
      if (!state.rejected.has(key)) return key;
    }
    return null;
  }

  /** Whether this key was already refused (so a refusal is logged loudly only once). */
  isRejected(providerName: string, key: string): boolean {
    return this.#providers.get(providerName)?.rejected.has(key) ?? false;
  }

  /** The upstream refused this key. Returns how many usable keys the provider has left. */
  reject(provider: ProviderConfig, key: string): number {
    const state = this.#state(provider.name);
    state.rejected.add(key);
    return provider.apiKeys.filter((k) => !state.rejected.has(k)).length;
  }

  /** The provider's keys the upstream refused, masked (the admin API shows them; the whole key never leaves). */
  refusedMasked(provider: ProviderConfig): string[] {
    const rejected = this.#providers.get(provider.name)?.rejected;
    return rejected === undefined ? [] : provider.apiKeys.filter((k) => rejected.has(k)).map(maskApiKey);
  }

  /** Operator action: bring refused keys back, for one provider or all. */
  reset(providerName?: string): void {
    if (providerName === undefined) this.#providers.clear();
    else this.#providers.delete(providerName);
  }
}
