// Token usage in OpenAI chat's wire shape, read and written: prompt_tokens includes the cached tokens
// (prompt_tokens_details.cached_tokens) and, where a server reports them, the tokens written to the cache.
import type { Usage } from '../../core/usage.ts';
import { isObject, num } from '../../core/json.ts';
import type { ChatUsage } from './wire.ts';

/**
 * An OpenAI-style `usage` object, read the same way on every route (pass-through tap and body, the hub's
 * decoders, embeddings). `prompt_tokens` includes the cached tokens and, on servers that report them
 * (OpenRouter-style `cache_write_tokens`), the tokens written to the cache: input is what is left.
 * `completion_tokens` includes the reasoning tokens, billed once as output. Audio and image counts are
 * parts of the prompt (cached ones too), never additions to it.
 */
export function usageFromOpenAi(raw: unknown): Usage | undefined {
  if (!isObject(raw)) return undefined;
  const details = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = num(details.cached_tokens) ?? 0;
  const written = num(details.cache_write_tokens ?? details.cache_creation_tokens) ?? 0;
  const usage: Usage = {
    inputTokens: Math.max(0, (num(raw.prompt_tokens) ?? 0) - cached - written),
    outputTokens: num(raw.completion_tokens) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
  };
  readMediaParts(details, usage);
  if (isObject(raw.completion_tokens_details)) readOutputParts(raw.completion_tokens_details, usage);
  return usage;
}

/**
 * The audio and image parts of a prompt's details (`audio_tokens`, `image_tokens`: the whole prompt's,
 * cached included; `cached_tokens_details` the cached ones): uncached parts of inputTokens, cached ones
 * of cacheReadTokens. Shared with the Responses API's `input_tokens_details`.
 */
export function readMediaParts(details: Record<string, unknown>, usage: Usage): void {
  const audio = num(details.audio_tokens) ?? 0;
  const image = num(details.image_tokens) ?? 0;
  if (audio <= 0 && image <= 0) return;
  const cachedDetails = isObject(details.cached_tokens_details) ? details.cached_tokens_details : {};
  const cachedAudio = Math.max(0, num(cachedDetails.audio_tokens) ?? 0);
  const cachedImage = Math.max(0, num(cachedDetails.image_tokens) ?? 0);
  if (audio > 0) usage.inputAudioTokens = Math.max(0, audio - cachedAudio);
  if (image > 0) usage.inputImageTokens = Math.max(0, image - cachedImage);
  if (cachedAudio > 0) usage.cacheReadAudioTokens = cachedAudio;
  if (cachedImage > 0) usage.cacheReadImageTokens = cachedImage;
}

/** `completion_tokens_details` / `output_tokens_details`: reasoning, audio and image parts of the output. */
export function readOutputParts(details: Record<string, unknown>, usage: Usage): void {
  const reasoning = num(details.reasoning_tokens) ?? 0;
  const audio = num(details.audio_tokens) ?? 0;
  const image = num(details.image_tokens) ?? 0;
  if (reasoning > 0) usage.reasoningTokens = reasoning;
  if (audio > 0) usage.outputAudioTokens = audio;
  if (image > 0) usage.outputImageTokens = image;
}

/** OpenAI `usage` into `into` (the pass-through tap's running usage, a whole body's); false when it is not one. */
export function readOpenAIUsage(usage: unknown, into: Usage): boolean {
  const read = usageFromOpenAi(usage);
  if (read === undefined) return false;
  Object.assign(into, read);
  return true;
}

export function usageToOpenAi(usage: Usage): ChatUsage {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  // Cache writes are inside prompt_tokens, as OpenAI-compatible servers count them; billing keeps them apart.
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}
