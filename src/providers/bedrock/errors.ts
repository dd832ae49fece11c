// Bedrock's error bodies (`{"message": "…"}`, the type in `__type` or the x-amzn-errortype header) read
// for the gateway: the status its type stands for where the body names one (so a ThrottlingException is
// a rate signal whatever the status line said), the message kept so a caller can fix a bad request.
import { isObject } from '../../core/json.ts';
import type { UpstreamError } from '../../spec/form.ts';
import { bedrockErrorStatus, bedrockErrorType } from './converse-errors.ts';

export function readBedrockError(status: number, text: string): UpstreamError | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(parsed)) return null;
  // Anthropic's own error body (an InvokeModel reply may carry one): the dialect's reader knows it.
  if (parsed.type === 'error') return null;
  const message =
    typeof parsed.message === 'string'
      ? parsed.message
      : typeof parsed.Message === 'string'
        ? parsed.Message
        : undefined;
  if (message === undefined) return null;
  const rawType = typeof parsed.__type === 'string' ? parsed.__type : undefined;
  const type = rawType === undefined ? undefined : bedrockErrorType(rawType);
  return {
    from: 'messages',
    status: type === undefined ? status : bedrockErrorStatus(type),
    message,
    ...(type === undefined ? {} : { type }),
  };
}
