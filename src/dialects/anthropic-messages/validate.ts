// Validation of POST /v1/messages bodies (SPEC §2.3 and §8): required max_tokens, first role user,
// strict alternation of user and assistant, temperature 0–1. Mid-conversation `role: "system"` items
// (Claude Code sends them) are kept in place and do not take part in the alternation (DESIGN.md Part 3).
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { RequestFacts } from '../request-facts.ts';
import { checkVersionRules, type AnthropicVersion } from './version.ts';

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

export function validateMessagesRequest(body: unknown, version: AnthropicVersion = '2023-06-01'): RequestFacts {
  if (!isObject(body)) throw bad('The request body must be a JSON object.', '');
  const { model, messages, max_tokens: maxTokens, stream, system } = body;
  if (typeof model !== 'string' || model.length === 0)
    throw bad('model: Field required (a non-empty string).', 'model');
  if (maxTokens === undefined || maxTokens === null) throw bad('max_tokens: Field required.', 'max_tokens');
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw bad('max_tokens: must be a positive integer.', 'max_tokens');
  }
  if (!Array.isArray(messages) || messages.length === 0)
    throw bad('messages: Field required (a non-empty array).', 'messages');
  let expected = 'user';
  let seenTurn = false;
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isObject(m)) throw bad(`messages.${i}: must be an object.`, `messages.${i}`);
    if (m.role === 'system') {
      systemItem(m.content, i);
      continue;
    }
    if (m.role !== 'user' && m.role !== 'assistant')
      throw bad(`messages.${i}.role: must be "user", "assistant" or "system".`, `messages.${i}.role`);
    if (m.role !== expected) {
      throw bad(
        !seenTurn
          ? `messages.${i}.role: the first message must use the "user" role${i === 0 ? '' : ' (system messages aside)'}.`
          : `messages.${i}.role: roles must alternate between "user" and "assistant"; found two "${m.role}" messages in a row.`,
        `messages.${i}.role`,
      );
    }
    expected = expected === 'user' ? 'assistant' : 'user';
    seenTurn = true;
    const c = m.content;
    if (typeof c !== 'string' && !Array.isArray(c))
      throw bad(`messages.${i}.content: must be a string or an array of content blocks.`, `messages.${i}.content`);
  }
  if (system !== undefined && system !== null && typeof system !== 'string' && !Array.isArray(system)) {
    throw bad('system: must be a string or an array of text blocks.', 'system');
  }
  checkVersionRules(body, version);
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
    throw bad('stream: must be a boolean.', 'stream');
  range(body, 'temperature', 0, 1);
  range(body, 'top_p', 0, 1);
  const topK = body.top_k;
  if (topK !== undefined && topK !== null && (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0)) {
    throw bad('top_k: must be a non-negative integer.', 'top_k');
  }
  const stops = body.stop_sequences;
  if (stops !== undefined && stops !== null && (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string'))) {
    throw bad('stop_sequences: must be an array of strings.', 'stop_sequences');
  }
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools))
    throw bad('tools: must be an array.', 'tools');
  const tc = body.tool_choice;
  if (tc !== undefined && tc !== null && (!isObject(tc) || typeof tc.type !== 'string'))
    throw bad('tool_choice: must be an object with a `type`.', 'tool_choice');
  return { model, stream: stream === true, maxTokens, includeUsage: false };
}

/** A system item holds what the top-level `system` field may hold: a string or text blocks. */
function systemItem(content: unknown, i: number): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content) || content.some((b) => !isObject(b) || b.type !== 'text' || typeof b.text !== 'string')) {
    throw bad(
      `messages.${i}.content: a system message holds a string or an array of text blocks.`,
      `messages.${i}.content`,
    );
  }
}

function range(body: Record<string, unknown>, field: string, min: number, max: number): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw bad(`${field}: must be a number from ${min} to ${max}.`, field);
}

/** POST /v1/messages/count_tokens: the version's rules, a model and the messages (the rest is the upstream's to judge). */
export function validateMessagesCount(
  body: unknown,
  version: AnthropicVersion,
): Record<string, unknown> & { model: string } {
  if (isObject(body)) checkVersionRules(body, version);
  if (!isObject(body) || typeof body.model !== 'string')
    throw new GatewayError('invalid_request', { message: 'model: Field required.', param: 'model' });
  if (!Array.isArray(body.messages))
    throw new GatewayError('invalid_request', { message: 'messages: Field required.', param: 'messages' });
  return body as Record<string, unknown> & { model: string };
}
