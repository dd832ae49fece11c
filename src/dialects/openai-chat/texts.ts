// Where chat completions (and embeddings, which share the dialect) keep text, for stages.
import { isObject } from '../../core/json.ts';
import { addContent, addString, eachObject, noTexts, type DialectTexts, type TextSlot } from '../text-slots.ts';

export const chatTexts: DialectTexts = {
  request(body: Record<string, unknown>, out: TextSlot[]): void {
    eachObject(body.messages, (m) => addContent(m, 'content', out));
    // POST /v1/embeddings: a string or a list of strings (token arrays are not text).
    const input = body.input;
    if (typeof input === 'string') addString(body, 'input', out);
    else if (Array.isArray(input)) for (let i = 0; i < input.length; i++) addString(input, i, out);
  },
  reply(body: Record<string, unknown>, out: TextSlot[]): void {
    eachObject(body.choices, (c) => {
      if (!isObject(c.message)) return;
      addString(c.message, 'content', out);
      addString(c.message, 'refusal', out);
    });
  },
  streamDeltas(event: Record<string, unknown>, out: TextSlot[]): void {
    eachObject(event.choices, (c, i) => {
      if (isObject(c.delta)) addString(c.delta, 'content', out, typeof c.index === 'number' ? c.index : i);
    });
  },
  streamEnds(event: Record<string, unknown>): boolean {
    let ends = false;
    eachObject(event.choices, (c) => {
      if (typeof c.finish_reason === 'string') ends = true;
    });
    return ends;
  },
  streamWhole: noTexts,
};
