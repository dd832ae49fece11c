// Anthropic's machine-readable error detail (`error.details`, e.g. `{"error_code":
// "mid_conversation_system_not_supported"}`): both SDKs expose it and Claude Code picks its fallbacks by
// it, so an Anthropic-style upstream's refusal reaches an Anthropic caller with it unchanged.
import { isObject } from '../../core/json.ts';

/** Details larger than this are an upstream's page, not a code: left out. */
const MAX_DETAILS = 2000;

/** `error.details` of an Anthropic error body, re-serialised through `mask`, or null. */
export function anthropicErrorDetails(
  bodyText: string,
  mask: (text: string) => string,
): Record<string, unknown> | null {
  if (bodyText.length === 0 || !bodyText.includes('"details"')) return null;
  try {
    const body: unknown = JSON.parse(bodyText);
    const details = isObject(body) && isObject(body.error) ? body.error.details : undefined;
    if (!isObject(details)) return null;
    const text = JSON.stringify(details);
    if (text.length > MAX_DETAILS) return null;
    const masked: unknown = JSON.parse(mask(text));
    return isObject(masked) ? masked : null;
  } catch {
    return null;
  }
}
