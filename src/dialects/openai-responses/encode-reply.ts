// A hub reply → the Responses API response object (client side, non-streamed). Output items in the
// order the model wrote them: reasoning, messages (consecutive text is one message), function and custom
// tool calls; a custom tool the upstream answered as a function call is restored to its free-form input.
import type { JsonObject } from '../../core/json.ts';
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { FinishReason, HubReply, HubRequest, ReasoningPart, ToolCallPart } from '../../spec/form.ts';
import { unwrapCustomInput } from '../../spec/custom-tool.ts';
import { echoOf, isCustomTool, responsesUsage } from './echo.ts';
import { carrierOf } from '../../spec/reasoning-carrier.ts';
import {
  customToolCallItem,
  functionCallItem,
  outputText,
  reasoningItem,
  responseObject,
  responsesId,
  type ResponseStatus,
} from './response-object.ts';

/** The status a finish reason gives a response, and why it is incomplete. */
export function statusOf(finish: FinishReason): {
  status: ResponseStatus;
  reason: 'max_output_tokens' | 'content_filter' | null;
} {
  if (finish === 'length' || finish === 'context-window') return { status: 'incomplete', reason: 'max_output_tokens' };
  if (finish === 'content-filter') return { status: 'incomplete', reason: 'content_filter' };
  if (finish === 'error') return { status: 'failed', reason: null };
  return { status: 'completed', reason: null };
}

/** OpenAI's own encrypted content as it came; another provider's reasoning in the gateway's token. */
function encryptedOf(part: ReasoningPart): string | undefined {
  if (part.origin === 'responses' || part.origin === undefined) return part.encrypted;
  return carrierOf(part);
}

export function reasoningItemOf(part: ReasoningPart, req: HubRequest, id: string): JsonObject {
  const encrypted = req.reasoning?.includeEncrypted === true ? encryptedOf(part) : undefined;
  return reasoningItem({ id, summary: part.text === '' ? [] : [part.text], encrypted });
}

export function toolCallItemOf(part: ToolCallPart, req: HubRequest): JsonObject {
  if (part.kind === 'custom' || isCustomTool(req, part.name)) {
    const input = part.kind === 'custom' ? part.input : unwrapCustomInput(part.input);
    return customToolCallItem({ id: responsesId('ctc'), callId: part.id, name: part.name, input });
  }
  return functionCallItem({
    id: responsesId('fc'),
    callId: part.id,
    name: part.name,
    arguments: part.input,
    status: 'completed',
  });
}

export function encodeResponsesReply(reply: HubReply, ctx: ClientReplyContext): string {
  const output: JsonObject[] = [];
  let message: JsonObject[] | null = null;
  for (const part of reply.content) {
    if (part.type === 'text') {
      if (message === null) {
        message = [];
        output.push({
          id: responsesId('msg'),
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: message,
        });
      }
      message.push(outputText(part.text));
      continue;
    }
    message = null;
    if (part.type === 'reasoning')
      output.push(
        reasoningItemOf(
          part,
          ctx.request,
          part.origin === 'responses' && part.id !== undefined ? part.id : responsesId('rs'),
        ),
      );
    else if (part.type === 'tool-call') output.push(toolCallItemOf(part, ctx.request));
  }
  const { status, reason } = statusOf(reply.finish);
  if (status === 'incomplete') for (const item of output) if (item.type === 'message') item.status = 'incomplete';
  return JSON.stringify(
    responseObject({
      id: responsesId('resp'),
      model: ctx.model,
      createdAt: ctx.created,
      status,
      output,
      usage: responsesUsage(reply.usage),
      echo: echoOf(ctx.request),
      incompleteReason: reason,
      error:
        status === 'failed' ? { code: 'server_error', message: 'The upstream failed to produce a response.' } : null,
    }),
  );
}
