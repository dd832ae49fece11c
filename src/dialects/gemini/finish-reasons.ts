// Gemini's finishReason ↔ the hub's finish reason.
import type { FinishReason } from '../../spec/form.ts';

const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** A Gemini finishReason as the hub's; a reply that made function calls ended for them. */
export function hubFinishOf(reason: unknown, toolCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content-filter';
  if (toolCalls) return 'tool-calls';
  if (reason === 'STOP' || reason === undefined) return 'stop';
  return 'other';
}

export const HUB_TO_GEMINI_FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  'stop-sequence': 'STOP',
  length: 'MAX_TOKENS',
  'tool-calls': 'STOP',
  'content-filter': 'SAFETY',
  refusal: 'SAFETY',
  pause: 'STOP',
  'context-window': 'MAX_TOKENS',
  error: 'OTHER',
  other: 'OTHER',
};
