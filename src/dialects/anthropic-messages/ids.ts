// Fresh ids in Anthropic's style, and the tool-id repair Anthropic's id pattern needs.
import { randomToken } from '../../core/random-token.ts';

export function newMessageId(): string {
  return `msg_${randomToken(24)}`;
}

export function newToolUseId(): string {
  return `toolu_${randomToken(24)}`;
}

/**
 * Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; some OpenAI-compatible servers emit ids such as
 * `functions.get_weather:0`. Deterministic, so a tool_calls id and the later tool_call_id still pair up;
 * a repaired id carries a hash of the original, so two ids that differ only in the replaced characters
 * (`call.1`, `call:1`) stay two ids (Anthropic refuses duplicate tool_use ids).
 */
export function toAnthropicToolId(id: string | undefined): string {
  if (id === undefined || id.length === 0) return newToolUseId();
  const safe = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return safe === id ? id : `${safe}_${fnv1a(id)}`;
}

/** FNV-1a over the UTF-16 code units, as 8 hex digits: short, stable, and no crypto for an id. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
