// Fresh ids in OpenAI chat's style.
import { randomToken } from '../../core/random-token.ts';

export function newChatCompletionId(): string {
  return `chatcmpl-${randomToken(29)}`;
}
