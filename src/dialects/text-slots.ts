// Where a dialect keeps text in its requests, replies and stream events, as slots a stage can read and
// replace in the parsed JSON (the pipeline then re-serialises a changed body). Each dialect folder has
// its own texts.ts implementing DialectTexts; stages/run.ts looks them up by dialect.
import { isObject } from '../core/json.ts';

/** A string value in a parsed body: `holder[key]`. `channel` tells streamed texts apart (choice, block). */
export interface TextSlot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  channel: number;
}

export interface DialectTexts {
  /** The prompt's texts: messages' contents, the system prompt, instructions, embedding input. */
  request(body: Record<string, unknown>, out: TextSlot[]): void;
  /** A whole reply's texts. */
  reply(body: Record<string, unknown>, out: TextSlot[]): void;
  /** A stream event's text deltas, each with its channel. */
  streamDeltas(event: Record<string, unknown>, out: TextSlot[]): void;
  /** Whether the event also ends the text of the channels it carries (a finish reason beside the text). */
  streamEnds(event: Record<string, unknown>): boolean;
  /** Texts of an event that repeats whole texts (Responses' `*.done`, `response.completed`). */
  streamWhole(event: Record<string, unknown>, out: TextSlot[]): void;
}

export function slotText(slot: TextSlot): string {
  return (slot.holder as Record<string | number, unknown>)[slot.key] as string;
}

export function setSlotText(slot: TextSlot, text: string): void {
  (slot.holder as Record<string | number, unknown>)[slot.key] = text;
}

/** `holder[key]` when it is a string. */
export function addString(
  holder: Record<string, unknown> | unknown[],
  key: string | number,
  out: TextSlot[],
  channel = 0,
): void {
  if (typeof (holder as Record<string | number, unknown>)[key] === 'string') out.push({ holder, key, channel });
}

/** A string, or a list of parts whose text is in `field` (parts of other types are left alone). */
export function addContent(holder: Record<string, unknown>, key: string, out: TextSlot[], field = 'text'): void {
  const value = holder[key];
  if (typeof value === 'string') out.push({ holder, key, channel: 0 });
  else if (Array.isArray(value)) for (const part of value) if (isObject(part)) addString(part, field, out);
}

export function eachObject(list: unknown, visit: (item: Record<string, unknown>, index: number) => void): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (isObject(item)) visit(item, i);
  }
}

export function noTexts(): void {}
