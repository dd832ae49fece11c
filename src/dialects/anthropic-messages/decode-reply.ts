// An Anthropic Message from the upstream → the hub's reply. In JSON mode the forced tool's input is the
// reply's text and replaces any text around it (the client asked for JSON only).
import type { AssistantPart, HubReply } from '../../spec/form.ts';
import { emptyUsage } from '../../core/usage.ts';
import { isObject, str } from '../../core/json.ts';
import type { MessagesReplyState } from './encode-request.ts';
import { finishOfStopReason } from './stop-reasons.ts';
import { jsonTextOfToolInput } from './structured-output.ts';
import { readAnthropicUsage } from './usage.ts';

export function decodeMessagesReply(msg: Record<string, unknown>, state: unknown): HubReply {
  const jsonMode = (state as MessagesReplyState | undefined)?.jsonMode ?? null;
  let content: AssistantPart[] = [];
  let jsonText: string | undefined;
  let calls = 0;
  for (const block of Array.isArray(msg.content) ? msg.content : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text') content.push({ type: 'text', text: str(block.text) ?? '' });
    else if (block.type === 'thinking') {
      content.push({
        type: 'reasoning',
        text: str(block.thinking) ?? '',
        signature: str(block.signature) ?? '',
        origin: 'messages',
      });
    } else if (block.type === 'redacted_thinking') {
      content.push({ type: 'reasoning', text: '', redacted: str(block.data) ?? '', origin: 'messages' });
    } else if (block.type === 'tool_use') {
      const input = isObject(block.input) ? block.input : {};
      const name = str(block.name) ?? '';
      if (jsonMode !== null && name === jsonMode.toolName) {
        jsonText = jsonTextOfToolInput(input, jsonMode);
        continue;
      }
      calls++;
      content.push({ type: 'tool-call', id: str(block.id) ?? '', name, input: JSON.stringify(input) });
    }
  }
  let finish = finishOfStopReason(msg.stop_reason);
  if (jsonText !== undefined) {
    content = content.filter((p) => p.type !== 'text');
    content.push({ type: 'text', text: jsonText });
    // The forced JSON tool is not a tool call to the client: its input was the content.
    if (calls === 0 && finish === 'tool-calls') finish = 'stop';
  }
  const usage = emptyUsage();
  const reply: HubReply = { content, finish, usage };
  if (!readAnthropicUsage(msg.usage, usage)) reply.usageMissing = true;
  const stopSequence = str(msg.stop_sequence);
  if (stopSequence !== undefined) reply.stopSequence = stopSequence;
  const id = str(msg.id);
  if (id !== undefined) reply.id = id;
  return reply;
}
