// Configured models by name and alias, their family, and which of them a key may use (exact names or globs);
// the catalog stage of one request: its model must exist for the key, be allowed, and suit the endpoint.
import type { Dialect, ModelMode } from '../core/dialect.ts';
import type { GatewayConfig, ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { GatewayError } from '../core/errors.ts';

/** A `*` pattern as an anchored regular expression (`*` matches any run of characters, `/` included). */
export function globRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export class Catalog {
  readonly models: ModelConfig[];
  /** `/v1/messages` serves every chat model, not only the Claude family (`messages_any_model`). */
  readonly messagesAnyModel: boolean;
  #byName = new Map<string, ModelConfig>();
  #byAlias = new Map<string, ModelConfig>();
  /** Alias patterns in config order, compiled once here: a request never compiles one. */
  #aliasPatterns: { re: RegExp; model: ModelConfig }[] = [];
  #patterns = new Map<string, RegExp>();
  /** Unix seconds used as every model's `created` (the config's load time). */
  readonly created = Math.floor(Date.now() / 1000);

  constructor(config: GatewayConfig) {
    this.models = config.models;
    this.messagesAnyModel = config.messagesAnyModel === true;
    for (const m of config.models) this.#byName.set(m.name, m);
    for (const m of config.models) {
      for (const a of m.aliases ?? []) {
        if (a.includes('*')) this.#aliasPatterns.push({ re: globRegExp(a), model: m });
        else if (!this.#byAlias.has(a)) this.#byAlias.set(a, m);
      }
    }
  }

  /** A configured model by its own name only (usage rows, prices and labels name models this way). */
  get(name: string): ModelConfig | undefined {
    return this.#byName.get(name);
  }

  /**
   * The model a caller's name reaches: its own name first, then an exact alias, then the first alias
   * pattern in config order that matches.
   */
  resolve(name: string): ModelConfig | undefined {
    const m = this.#byName.get(name);
    if (m !== undefined) return m;
    return this.#aliasOf(name);
  }

  #aliasOf(name: string): ModelConfig | undefined {
    const m = this.#byAlias.get(name);
    if (m !== undefined) return m;
    for (const p of this.#aliasPatterns) if (p.re.test(name)) return p.model;
    return undefined;
  }

  /** The exact aliases of the models a key may use, each with its model, in config order. */
  exactAliasesFor(key: KeyRecord): { alias: string; model: ModelConfig }[] {
    const out: { alias: string; model: ModelConfig }[] = [];
    for (const [alias, model] of this.#byAlias) if (this.allows(key, model.name)) out.push({ alias, model });
    return out;
  }

  /** Whether `/v1/messages` serves this model. */
  servesOnMessages(model: ModelConfig): boolean {
    return model.family === 'anthropic' || this.messagesAnyModel;
  }

  /** The key's own rights and its team's (both must allow the model). */
  allows(key: KeyRecord, model: string): boolean {
    const team = key.teamRecord?.models ?? null;
    return this.#matches(key.models, model) && (team === null || this.#matches(team, model));
  }

  #matches(patterns: readonly string[] | null, model: string): boolean {
    if (patterns === null) return true;
    for (const p of patterns) {
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
      re = globRegExp(pattern);
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
  const model = catalog.resolve(name);
  if (!model) {
    throw new GatewayError('model_not_found', {
      message: `The model \`${name}\` does not exist. GET /v1/models lists the models this key may use.`,
      param: 'model',
    });
  }
  // The key's rights are on the model an alias reaches, not on the alias.
  if (!catalog.allows(key, model.name)) {
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
  if (dialect === 'anthropic' && !catalog.servesOnMessages(model)) {
    throw new GatewayError('wrong_endpoint_for_model', {
      message: `The model \`${name}\` is not a Claude-family model and is not served on /v1/messages (the operator can set \`messages_any_model: true\`); use POST /v1/chat/completions.`,
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
  const usable = catalog.listFor(key).some((m) => at.dialect !== 'anthropic' || catalog.servesOnMessages(m));
  if (!usable)
    throw new GatewayError('model_not_allowed', {
      message: `This API key may not use any model served on ${at.endpoint}.`,
    });
}
