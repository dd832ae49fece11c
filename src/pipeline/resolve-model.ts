// The catalog stage for one request: the model must exist for this key, be allowed, and suit the endpoint.
import type { Dialect } from '../core/dialect.ts';
import type { ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { GatewayError } from '../core/errors.ts';
import type { Catalog } from '../catalog/catalog.ts';

export function resolveModel(catalog: Catalog, key: KeyRecord, name: string, dialect: Dialect): ModelConfig {
  const model = catalog.get(name);
  if (!model) {
    throw new GatewayError('model_not_found', {
      message: `The model \`${name}\` does not exist. GET /v1/models lists the models this key may use.`,
      param: 'model',
    });
  }
  if (!catalog.allows(key, name)) {
    throw new GatewayError('model_not_allowed', { message: `This API key is not allowed to use the model \`${name}\`.`, param: 'model' });
  }
  if (dialect === 'anthropic' && model.family !== 'anthropic') {
    throw new GatewayError('wrong_endpoint_for_model', {
      message: `The model \`${name}\` is not a Claude-family model and is not served on /v1/messages; use POST /v1/chat/completions.`,
      param: 'model',
    });
  }
  return model;
}
