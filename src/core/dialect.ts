// The two wire dialects callers speak, and the provider kinds upstreams speak.

/**
 * The dialect of a client endpoint: `/v1/chat/completions` is openai, `/v1/messages` is anthropic,
 * `/v1/responses` is responses (OpenAI's Responses API, with OpenAI's error shape).
 */
export type Dialect = 'openai' | 'anthropic' | 'responses';

/** What an upstream speaks. `mock` is the built-in deterministic model and speaks both dialects. */
export type ProviderKind = 'openai' | 'anthropic' | 'mock';
