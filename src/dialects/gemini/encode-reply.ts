// The hub's reply → a GenerateContentResponse for a Gemini caller. Thoughts are shown only to a caller
// that asked for them (`thinkingConfig.includeThoughts`), as Gemini does; function calls carry their id,
// which Gemini clients copy into the functionResponse that answers them.
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { AssistantPart, HubReply } from '../../spec/form.ts';
import { carrierOf } from '../../spec/reasoning-carrier.ts';
import { HUB_TO_GEMINI_FINISH } from './finish-reasons.ts';
import { usageToGemini } from './usage.ts';

type Json = Record<string, unknown>;

/** `args` of a function call: its input as an object (Gemini has no other kind). */
export function argsOfInput(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(input);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { input: v };
  } catch {
    return { input };
  }
}

/** One hub part as a Gemini part, or null when the caller does not see it. */
export function geminiPartOf(p: AssistantPart, ctx: ClientReplyContext): Json | null {
  if (p.type === 'text') return { text: p.text };
  if (p.type === 'tool-call') {
    const part: Json = { functionCall: { id: p.id, name: p.name, args: argsOfInput(p.input) } };
    if (p.signature !== undefined) part.thoughtSignature = p.signature;
    return part;
  }
  if (p.type === 'reasoning') {
    if (ctx.request.reasoning?.summary === undefined || p.text === '') return null;
    const part: Json = { text: p.text, thought: true };
    // Another provider's opaque reasoning rides in the gateway's token (reasoning-carrier.ts).
    const signature = p.origin === 'gemini' ? p.signature : carrierOf(p);
    if (signature !== undefined) part.thoughtSignature = signature;
    return part;
  }
  if ('base64' in p.data) return { inlineData: { mimeType: p.mediaType, data: p.data.base64 } };
  if ('url' in p.data) return { fileData: { mimeType: p.mediaType, fileUri: p.data.url } };
  return null;
}

export function encodeGeminiReply(reply: HubReply, ctx: ClientReplyContext): string {
  const parts: Json[] = [];
  for (const p of reply.content) {
    const part = geminiPartOf(p, ctx);
    if (part !== null) parts.push(part);
  }
  if (parts.length === 0) parts.push({ text: '' });
  return JSON.stringify({
    candidates: [{ content: { parts, role: 'model' }, finishReason: HUB_TO_GEMINI_FINISH[reply.finish], index: 0 }],
    usageMetadata: usageToGemini(reply.usage),
    modelVersion: ctx.model,
    responseId: reply.id ?? `mg-${ctx.created}`,
  });
}
