// The bill of a whole answer that came without usage (some local and compatible servers omit it): the
// prompt estimate, and the reply's output at about four characters a token — as a stream without usage
// is billed — rather than nothing. The reply is read by its dialect's decoder, as translation reads it.
import type { Dialect } from '../core/dialect.ts';
import { isObject } from '../core/json.ts';
import type { Usage } from '../core/usage.ts';
import { decodeChatReply } from '../dialects/openai-chat/decode-reply.ts';
import { decodeMessagesReply } from '../dialects/anthropic-messages/decode-reply.ts';
import { decodeResponsesReply } from '../dialects/openai-responses/decode-reply.ts';
import { estimatedUsage } from './hub/usage-estimate.ts';

export function estimatedReplyUsage(reply: unknown, dialect: Dialect, promptEstimate: () => number): Usage {
  const body = isObject(reply) ? reply : {};
  const decoded = dialect === 'openai' ? decodeChatReply(body, undefined) : dialect === 'responses' ? decodeResponsesReply(body) : decodeMessagesReply(body, undefined);
  return estimatedUsage(decoded, promptEstimate);
}
