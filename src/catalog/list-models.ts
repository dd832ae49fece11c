// GET /v1/models and /v1/models/{id}: exactly the models the key may use, readable by both SDKs
// (DESIGN.md "Listing"): each item carries OpenAI's fields and Anthropic's.
import type { KeyRecord } from '../core/key-record.ts';
import type { ModelConfig } from '../core/config-types.ts';
import type { Catalog } from './catalog.ts';

function item(catalog: Catalog, m: ModelConfig) {
  return {
    id: m.name,
    object: 'model',
    created: catalog.created,
    owned_by: m.family,
    type: 'model',
    display_name: m.name,
    created_at: new Date(catalog.created * 1000).toISOString(),
  };
}

export function listModelsBody(catalog: Catalog, key: KeyRecord): string {
  const data = catalog.listFor(key).map((m) => item(catalog, m));
  return JSON.stringify({
    object: 'list',
    data,
    has_more: false,
    first_id: data.length ? data[0].id : null,
    last_id: data.length ? data[data.length - 1].id : null,
  });
}

/** One model as `models.retrieve` reads it; null when it is not configured or the key may not use it. */
export function modelBody(catalog: Catalog, key: KeyRecord, id: string): string | null {
  const m = catalog.get(id);
  return m === undefined || !catalog.allows(key, m.name) ? null : JSON.stringify(item(catalog, m));
}
