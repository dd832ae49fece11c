// The two wire dialects callers speak, and the provider kinds upstreams speak.

/** The dialect of a client endpoint: `/v1/chat/completions` is openai, `/v1/messages` is anthropic. */
export type Dialect = 'openai' | 'anthropic';

/** What an upstream speaks. `mock` is the built-in deterministic model and speaks both dialects. */
export type ProviderKind = 'openai' | 'anthropic' | 'mock';
