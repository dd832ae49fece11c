// Gemini's `usageMetadata` as the gateway bills it: `promptTokenCount` includes the cached tokens, and
// the thoughts (`thoughtsTokenCount`) are output billed beside the candidates.
import { isObject } from '../../core/json.ts';
import type { HubUsage } from '../../spec/form.ts';

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * Usage from a `usageMetadata` object, or undefined when it is not one. `promptTokenCount` includes the
 * cached tokens; `thoughtsTokenCount` is output billed beside `candidatesTokenCount`, not inside it. The
 * per-modality details (`promptTokensDetails`, `cacheTokensDetails`, `candidatesTokensDetails`) give the
 * audio and image parts; the prompt's include the cached ones, which come out of them.
 */
export function usageFromGemini(raw: unknown): HubUsage | undefined {
  if (!isObject(raw)) return undefined;
  const cached = count(raw.cachedContentTokenCount);
  const thoughts = count(raw.thoughtsTokenCount);
  const usage: HubUsage = {
    // Tool-use prompt tokens (the results of Google's own tools) are input too.
    inputTokens: Math.max(0, count(raw.promptTokenCount) - cached) + count(raw.toolUsePromptTokenCount),
    outputTokens: count(raw.candidatesTokenCount) + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  if (thoughts > 0) usage.reasoningTokens = thoughts;
  if (raw.promptTokensDetails !== undefined || raw.candidatesTokensDetails !== undefined) {
    const cachedAudio = modality(raw.cacheTokensDetails, 'AUDIO');
    const cachedImage = modality(raw.cacheTokensDetails, 'IMAGE');
    const audio = Math.max(0, modality(raw.promptTokensDetails, 'AUDIO') - cachedAudio);
    const image = Math.max(0, modality(raw.promptTokensDetails, 'IMAGE') - cachedImage);
    if (audio > 0) usage.inputAudioTokens = audio;
    if (image > 0) usage.inputImageTokens = image;
    if (cachedAudio > 0) usage.cacheReadAudioTokens = cachedAudio;
    if (cachedImage > 0) usage.cacheReadImageTokens = cachedImage;
    const outAudio = modality(raw.candidatesTokensDetails, 'AUDIO');
    const outImage = modality(raw.candidatesTokensDetails, 'IMAGE');
    if (outAudio > 0) usage.outputAudioTokens = outAudio;
    if (outImage > 0) usage.outputImageTokens = outImage;
  }
  return usage;
}

/** The tokens of one modality in a `…TokensDetails` list (`[{ modality, tokenCount }]`). */
function modality(details: unknown, name: string): number {
  if (!Array.isArray(details)) return 0;
  let n = 0;
  for (const d of details) if (isObject(d) && d.modality === name) n += count(d.tokenCount);
  return n;
}

/** `usageMetadata` for a client from hub usage (the inverse of usageFromGemini). */
export function usageToGemini(u: HubUsage): Record<string, number> {
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const thoughts = u.reasoningTokens ?? 0;
  const candidates = Math.max(0, u.outputTokens - thoughts);
  const out: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + u.outputTokens,
  };
  if (u.cacheReadTokens > 0) out.cachedContentTokenCount = u.cacheReadTokens;
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  return out;
}
