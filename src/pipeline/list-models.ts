// GET /v1/models: exactly the models the key may use, readable by both SDKs (DESIGN.md "Listing").
import type { KeyRecord } from '../core/key-record.ts';
import type { Catalog } from '../catalog/catalog.ts';

export function listModelsBody(catalog: Catalog, key: KeyRecord): string {
  const createdAt = new Date(catalog.created * 1000).toISOString();
  const data = catalog.listFor(key).map((m) => ({
    id: m.name,
    object: 'model',
    created: catalog.created,
    owned_by: m.family,
    type: 'model',
    display_name: m.name,
    created_at: createdAt,
  }));
  return JSON.stringify({
    object: 'list',
    data,
    has_more: false,
    first_id: data.length ? data[0].id : null,
    last_id: data.length ? data[data.length - 1].id : null,
  });
}
