// Where Gemini's generateContent keeps text, for stages.
import { isObject } from '../../core/json.ts';
import { addString, eachObject, noTexts, type DialectTexts, type TextSlot } from '../text-slots.ts';

function partsOf(content: unknown, out: TextSlot[], channel = 0): void {
  if (isObject(content)) eachObject(content.parts, (part) => addString(part, 'text', out, channel));
}

function candidateTexts(body: Record<string, unknown>, out: TextSlot[]): void {
  eachObject(body.candidates, (c, i) => partsOf(c.content, out, typeof c.index === 'number' ? c.index : i));
}

export const geminiTexts: DialectTexts = {
  request(body: Record<string, unknown>, out: TextSlot[]): void {
    partsOf(body.systemInstruction ?? body.system_instruction, out);
    eachObject(body.contents, (c) => partsOf(c, out));
  },
  reply: candidateTexts,
  // Every streamed chunk is a partial reply: its texts are deltas.
  streamDeltas: candidateTexts,
  streamEnds(event: Record<string, unknown>): boolean {
    let ends = false;
    eachObject(event.candidates, (c) => {
      if (typeof c.finishReason === 'string') ends = true;
    });
    return ends;
  },
  streamWhole: noTexts,
};
