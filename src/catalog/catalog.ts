// Configured models by name, their family, and which of them a key may use (exact names or globs); the
// catalog stage of one request: its model must exist for the key, be allowed, and suit the endpoint.
import type { Dialect, ModelMode } from '../core/dialect.ts';
import type { GatewayConfig, ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { GatewayError } from '../core/errors.ts';

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
      re = new RegExp(
        `^${pattern
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
      this.#patterns.set(pattern, re);
    }
    return re;
  }
}

/** `mode` is what the endpoint serves: generation endpoints want chat models, /v1/embeddings embedding ones. */
export function resolveModel(
  catalog: Catalog,
  key: KeyRecord,
  name: string,
  dialect: Dialect,
  mode: ModelMode = 'chat',
): ModelConfig {
  const model = catalog.get(name);
  if (!model) {
    throw new GatewayError('model_not_found', {
      message: `The model \`${name}\` does not exist. GET /v1/models lists the models this key may use.`,
      param: 'model',
    });
  }
  if (!catalog.allows(key, name)) {
    throw new GatewayError('model_not_allowed', {
      message: `This API key is not allowed to use the model \`${name}\`.`,
      param: 'model',
    });
  }
  if (model.mode !== mode) {
    throw new GatewayError('wrong_endpoint_for_model', {
      message:
        model.mode === 'embedding'
          ? `The model \`${name}\` is an embedding model: it is served on POST /v1/embeddings, not on this endpoint.`
          : `The model \`${name}\` is not an embedding model: POST /v1/embeddings serves embedding models only; use /v1/chat/completions, /v1/messages or Gemini's generateContent for it.`,
      param: 'model',
    });
  }
  if (dialect === 'anthropic' && model.family !== 'anthropic') {
    throw new GatewayError('wrong_endpoint_for_model', {
      message: `The model \`${name}\` is not a Claude-family model and is not served on /v1/messages; use POST /v1/chat/completions.`,
      param: 'model',
    });
  }
  return model;
}

/**
 * A key with no model it may use on this endpoint gets its 403 before its body is decoded; on a
 * Gemini path the model is in the URL, so that model is checked as resolveModel will.
 */
export function refuseUnusableKey(
  catalog: Catalog,
  key: KeyRecord,
  at: { dialect: Dialect; endpoint: string; model: string | null | undefined; mode: ModelMode },
): void {
  if (at.model) {
    resolveModel(catalog, key, at.model, at.dialect, at.mode);
    return;
  }
  // Only /v1/messages narrows the models by family; every other endpoint takes any model of the key.
  const usable = catalog.listFor(key).some((m) => at.dialect !== 'anthropic' || m.family === 'anthropic');
  if (!usable)
    throw new GatewayError('model_not_allowed', {
      message: `This API key may not use any model served on ${at.endpoint}.`,
    });
}
