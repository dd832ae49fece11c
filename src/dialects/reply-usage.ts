// The bill of a whole reply that came without usage, estimated from its content (a reply that has usage
// is read where the upstream wrote it: json-text.ts and each dialect's reader in its folder).
import type { Dialect } from '../core/dialect.ts';
import { estimatedUsage, type Usage } from '../core/usage.ts';
import { isObject } from '../core/json.ts';
import type { HubReply } from '../spec/form.ts';
import { decodeMessagesReply } from './anthropic-messages/decode-reply.ts';
import { decodeGeminiReply } from './gemini/decode-reply.ts';
import { decodeChatReply } from './openai-chat/decode-reply.ts';
import { decodeResponsesReply } from './openai-responses/decode-reply.ts';

/**
 * The bill of a whole reply that came without usage (some local and compatible servers omit it): the
 * prompt estimate, and the reply's output at about four characters a token, as a stream without usage
 * is billed, rather than nothing. The reply is read by its dialect's decoder, as translation reads it.
 */
export function estimatedReplyUsage(reply: unknown, dialect: Dialect, promptEstimate: () => number): Usage {
  const body = isObject(reply) ? reply : {};
  return estimatedHubUsage(decodedReply(body, dialect), promptEstimate);
}

function decodedReply(body: Record<string, unknown>, dialect: Dialect): HubReply {
  if (dialect === 'openai') return decodeChatReply(body, undefined);
  if (dialect === 'responses') return decodeResponsesReply(body);
  if (dialect === 'gemini') return decodeGeminiReply(body);
  return decodeMessagesReply(body, undefined);
}

/** The same bill for a reply already decoded into the hub's form. */
export function estimatedHubUsage(reply: HubReply, promptEstimate: () => number): Usage {
  let chars = 0;
  for (const part of reply.content) {
    if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
    else if (part.type === 'tool-call') chars += part.name.length + part.input.length;
  }
  return estimatedUsage(promptEstimate(), chars);
}
