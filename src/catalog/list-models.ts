// GET /v1/models and /v1/models/{id}: exactly the models the key may use, readable by both SDKs
// (DESIGN.md "Listing"): each item carries OpenAI's fields and Anthropic's.
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { ModelConfig } from '../core/config-types.ts';
import type { Catalog } from './catalog.ts';

function item(catalog: Catalog, m: ModelConfig, id = m.name) {
  return {
    id,
    object: 'model',
    created: catalog.created,
    owned_by: m.family,
    type: 'model',
    display_name: id,
    created_at: new Date(catalog.created * 1000).toISOString(),
  };
}

/** The key's models, then each exact alias of them as an entry of its own (patterns cannot be listed). */
export function listModelsBody(catalog: Catalog, key: KeyRecord): string {
  const data = catalog.listFor(key).map((m) => item(catalog, m));
  for (const a of catalog.exactAliasesFor(key)) data.push(item(catalog, a.model, a.alias));
  return JSON.stringify({
    object: 'list',
    data,
    has_more: false,
    first_id: data.length ? data[0].id : null,
    last_id: data.length ? data[data.length - 1].id : null,
  });
}

/**
 * One model as `models.retrieve` reads it, by its name or any alias (under the name asked for); a model the
 * key may not use is as absent as in the listing (404).
 */
export function modelBody(catalog: Catalog, key: KeyRecord, id: string | null): string {
  const m = id === null ? undefined : catalog.resolve(id);
  if (m === undefined || id === null || !catalog.allows(key, m.name))
    throw new GatewayError('model_not_found', {
      message: `The model '${id ?? ''}' does not exist or this key may not use it.`,
    });
  return JSON.stringify(item(catalog, m, id));
}
