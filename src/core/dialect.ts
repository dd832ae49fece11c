// The wire dialects callers speak, and the names of the provider kinds upstreams are.

/**
 * The dialect of a client endpoint: `/v1/chat/completions` and `/v1/embeddings` are openai,
 * `/v1/messages` is anthropic, `/v1/responses` is responses (OpenAI's Responses API, with OpenAI's error
 * shape), `/v1beta/models/{model}:generateContent` and its kin are gemini.
 */
export type Dialect = 'openai' | 'anthropic' | 'responses' | 'gemini';

/** A provider's `kind:`: one of the provider specs src/registry.ts holds (`openai`, `anthropic`, `mock`, …). */
export type ProviderKind = string;

/** What a model does: generate text (every generation endpoint) or embed it (`/v1/embeddings`). */
export type ModelMode = 'chat' | 'embedding';
