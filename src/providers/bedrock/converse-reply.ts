// A whole Converse reply → the hub's reply: its content blocks read as the stream events they would have
// been, then folded, so blocks are read in one place (converse-stream.ts).
import { isObject } from '../../core/json.ts';
import type { HubEvent } from '../../spec/events.ts';
import { foldEvents } from '../../spec/fold.ts';
import type { HubReply } from '../../spec/form.ts';
import { ConverseStreamDecoder } from './converse-stream.ts';

export function decodeConverseReply(body: Record<string, unknown>): HubReply {
  const d = new ConverseStreamDecoder();
  const events: HubEvent[] = [];
  const message = isObject(body.output) && isObject(body.output.message) ? body.output.message : {};
  const content = Array.isArray(message.content) ? message.content : [];
  events.push(...d.event('messageStart', { role: 'assistant' }));
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!isObject(b)) continue;
    if (typeof b.text === 'string')
      events.push(...d.event('contentBlockDelta', { contentBlockIndex: i, delta: { text: b.text } }));
    else if (isObject(b.toolUse)) {
      events.push(...d.event('contentBlockStart', { contentBlockIndex: i, start: { toolUse: b.toolUse } }));
      const input = JSON.stringify(b.toolUse.input ?? {});
      events.push(...d.event('contentBlockDelta', { contentBlockIndex: i, delta: { toolUse: { input } } }));
    } else if (isObject(b.reasoningContent)) {
      const r = b.reasoningContent;
      const delta = isObject(r.reasoningText)
        ? { text: r.reasoningText.text ?? '', signature: r.reasoningText.signature }
        : { redactedContent: r.redactedContent };
      events.push(...d.event('contentBlockDelta', { contentBlockIndex: i, delta: { reasoningContent: delta } }));
    }
    events.push(...d.event('contentBlockStop', { contentBlockIndex: i }));
  }
  events.push(...d.event('messageStop', { stopReason: body.stopReason }));
  events.push(...d.event('metadata', { usage: body.usage }));
  return foldEvents(events, 'messages');
}
