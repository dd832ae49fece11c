// The wire dialects callers speak, and the provider kinds upstreams speak.

/**
 * The dialect of a client endpoint: `/v1/chat/completions` and `/v1/embeddings` are openai,
 * `/v1/messages` is anthropic, `/v1/responses` is responses (OpenAI's Responses API, with OpenAI's error
 * shape), `/v1beta/models/{model}:generateContent` and its kin are gemini.
 */
export type Dialect = 'openai' | 'anthropic' | 'responses' | 'gemini';

/** What an upstream speaks. `mock` is the built-in deterministic model and speaks every dialect. */
export type ProviderKind = 'openai' | 'anthropic' | 'gemini' | 'mock';

/** What a model does: generate text (every generation endpoint) or embed it (`/v1/embeddings`). */
export type ModelMode = 'chat' | 'embedding';
