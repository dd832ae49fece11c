// GET /v1beta/models and /v1beta/models/{model} (and /v1/ for callers that authenticate the Gemini
// way): exactly the key's models, in Gemini's shape (`models/{name}`, supportedGenerationMethods).
import type { Catalog } from './catalog.ts';
import type { ModelConfig } from '../core/config-types.ts';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';

/** What the gateway serves for each kind of model on Gemini's paths. */
const GENERATION_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];

function item(m: ModelConfig) {
  return {
    name: `models/${m.name}`,
    version: '001',
    displayName: m.name,
    description: `${m.name}, served by modelgate`,
    // Embedding models are served on POST /v1/embeddings, not on Gemini's paths.
    supportedGenerationMethods: m.mode === 'embedding' ? [] : GENERATION_METHODS,
  };
}

export function geminiModelsBody(catalog: Catalog, key: KeyRecord): string {
  return JSON.stringify({ models: catalog.listFor(key).map(item) });
}

/** One model; a model not configured, or that the key may not use, is as absent as in the listing (404). */
export function geminiModelBody(catalog: Catalog, key: KeyRecord, name: string | undefined): string {
  const m = name ? catalog.resolve(name.startsWith('models/') ? name.slice(7) : name) : undefined;
  if (m === undefined || !catalog.allows(key, m.name))
    throw new GatewayError('model_not_found', {
      message: `models/${name ?? ''} is not found, or this key may not use it.`,
    });
  return JSON.stringify(item(m));
}
