// The catalog stage for one request: the model must exist for this key, be allowed, and suit the endpoint.
import type { Dialect, ModelMode } from '../core/dialect.ts';
import type { ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { GatewayError } from '../core/errors.ts';
import type { Catalog } from './catalog.ts';

/** `mode` is what the endpoint serves: generation endpoints want chat models, /v1/embeddings embedding ones. */
export function resolveModel(catalog: Catalog, key: KeyRecord, name: string, dialect: Dialect, mode: ModelMode = 'chat'): ModelConfig {
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
  if (model.mode !== mode) {
    throw new GatewayError('wrong_endpoint_for_model', {
      message: model.mode === 'embedding'
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
