// Configured models by name, their family, and which of them a key may use (exact names or globs).
import type { GatewayConfig, ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';

export class Catalog {
  readonly models: ModelConfig[];
  #byName = new Map<string, ModelConfig>();
  #patterns = new Map<string, RegExp>();
  /** Unix seconds used as every model's `created` (the config's load time). */
  readonly created = Math.floor(Date.now() / 1000);

  constructor(config: GatewayConfig) {
    this.models = config.models;
    for (const m of config.models) this.#byName.set(m.name, m);
  }

  get(name: string): ModelConfig | undefined {
    return this.#byName.get(name);
  }

  allows(key: KeyRecord, model: string): boolean {
    if (key.models === null) return true;
    for (const p of key.models) {
      if (p === model) return true;
      if (p.includes('*') && this.#glob(p).test(model)) return true;
    }
    return false;
  }

  /** The models a key may use, in config order. */
  listFor(key: KeyRecord): ModelConfig[] {
    return this.models.filter((m) => this.allows(key, m.name));
  }

  #glob(pattern: string): RegExp {
    let re = this.#patterns.get(pattern);
    if (!re) {
      re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      this.#patterns.set(pattern, re);
    }
    return re;
  }
}
