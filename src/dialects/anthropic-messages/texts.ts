// Where Anthropic messages keep text, for stages.
import { isObject } from '../../core/json.ts';
import { addContent, addString, eachObject, noTexts, type DialectTexts, type TextSlot } from '../text-slots.ts';

export const messagesTexts: DialectTexts = {
  request(body: Record<string, unknown>, out: TextSlot[]): void {
    addContent(body, 'system', out);
    eachObject(body.messages, (m) => {
      addContent(m, 'content', out);
      // Tool results carry text of their own (a string or text blocks).
      eachObject(m.content, (block) => {
        if (block.type === 'tool_result') addContent(block, 'content', out);
      });
    });
  },
  reply(body: Record<string, unknown>, out: TextSlot[]): void {
    eachObject(body.content, (block) => {
      if (block.type === 'text') addString(block, 'text', out);
    });
  },
  streamDeltas(event: Record<string, unknown>, out: TextSlot[]): void {
    if (event.type !== 'content_block_delta' || !isObject(event.delta) || event.delta.type !== 'text_delta') return;
    addString(event.delta, 'text', out, typeof event.index === 'number' ? event.index : 0);
  },
  // A block's text ends with its own content_block_stop event.
  streamEnds: () => false,
  streamWhole: noTexts,
};
