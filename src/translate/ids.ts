// Fresh ids in each dialect's style, and the tool-id repair Anthropic's id pattern needs.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

export function newChatCompletionId(): string {
  return `chatcmpl-${randomToken(29)}`;
}

export function newMessageId(): string {
  return `msg_${randomToken(24)}`;
}

export function newToolUseId(): string {
  return `toolu_${randomToken(24)}`;
}

/**
 * Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; some OpenAI-compatible servers emit ids such as
 * `functions.get_weather:0`. Deterministic, so a tool_calls id and the later tool_call_id still pair up.
 */
export function toAnthropicToolId(id: string | undefined): string {
  if (id === undefined || id.length === 0) return newToolUseId();
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}
