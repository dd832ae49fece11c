// Where Responses API requests, responses and stream events keep text, for stages.
import { isObject } from '../../core/json.ts';
import { addContent, addString, eachObject, type DialectTexts, type TextSlot } from '../text-slots.ts';

function outputTexts(response: Record<string, unknown>, out: TextSlot[]): void {
  eachObject(response.output, (item) => itemTexts(item, out));
}

function itemTexts(item: Record<string, unknown>, out: TextSlot[]): void {
  if (item.type === 'message') eachObject(item.content, (part) => addString(part, 'text', out));
}

export const responsesTexts: DialectTexts = {
  request(body: Record<string, unknown>, out: TextSlot[]): void {
    addString(body, 'instructions', out);
    if (typeof body.input === 'string') addString(body, 'input', out);
    eachObject(body.input, (item) => {
      addContent(item, 'content', out);
      if (item.type === 'function_call_output') addString(item, 'output', out);
    });
  },
  reply: outputTexts,
  streamDeltas(event: Record<string, unknown>, out: TextSlot[]): void {
    if (event.type !== 'response.output_text.delta') return;
    const item = typeof event.output_index === 'number' ? event.output_index : 0;
    const part = typeof event.content_index === 'number' ? event.content_index : 0;
    addString(event, 'delta', out, item * 65536 + part);
  },
  // A part's text ends with response.output_text.done, an event of its own.
  streamEnds: () => false,
  streamWhole(event: Record<string, unknown>, out: TextSlot[]): void {
    switch (event.type) {
      case 'response.output_text.done':
        addString(event, 'text', out);
        return;
      case 'response.content_part.done':
        if (isObject(event.part)) addString(event.part, 'text', out);
        return;
      case 'response.output_item.done':
        if (isObject(event.item)) itemTexts(event.item, out);
        return;
      case 'response.completed':
      case 'response.incomplete':
        if (isObject(event.response)) outputTexts(event.response, out);
    }
  },
};
