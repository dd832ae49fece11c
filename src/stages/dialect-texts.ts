// Each dialect's text slots (dialects/*/texts.ts) and its hub decoders, by dialect: what the stage
// runner reads a body with. A table, not a switch: a new dialect is one more row.
import type { Dialect } from '../core/dialect.ts';
import type { DialectTexts } from '../dialects/text-slots.ts';
import { chatTexts } from '../dialects/openai-chat/texts.ts';
import { messagesTexts } from '../dialects/anthropic-messages/texts.ts';
import { responsesTexts } from '../dialects/openai-responses/texts.ts';
import { geminiTexts } from '../dialects/gemini/texts.ts';

export const DIALECT_TEXTS: Readonly<Record<Dialect, DialectTexts>> = {
  openai: chatTexts,
  anthropic: messagesTexts,
  responses: responsesTexts,
  gemini: geminiTexts,
};
