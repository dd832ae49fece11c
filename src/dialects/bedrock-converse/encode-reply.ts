// The hub's whole reply → a Converse reply: `output.message` with the assistant's content blocks (text,
// toolUse with its input as JSON, reasoningContent), `stopReason`, `usage` and `metrics`.
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { AssistantPart, HubReply } from '../../spec/form.ts';
import { converseStopReason } from './stop-reasons.ts';
import { converseUsage } from './usage.ts';

type Json = Record<string, unknown>;

/** A tool call's input as the object Converse carries; text that is not a JSON object goes as `{}`. */
export function toolInput(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof v === 'object' && v !== null ? v : {};
  } catch {
    return {};
  }
}

function block(p: AssistantPart): Json | null {
  switch (p.type) {
    case 'text':
      return { text: p.text };
    case 'tool-call':
      return { toolUse: { toolUseId: p.id, name: p.name, input: toolInput(p.input) } };
    case 'reasoning':
      if (p.redacted !== undefined) return { reasoningContent: { redactedContent: p.redacted } };
      return {
        reasoningContent: {
          reasoningText: p.signature === undefined ? { text: p.text } : { text: p.text, signature: p.signature },
        },
      };
    default:
      return null;
  }
}

export function encodeConverseReply(reply: HubReply, ctx: ClientReplyContext): string {
  const content: Json[] = [];
  for (const p of reply.content) {
    const b = block(p);
    if (b !== null) content.push(b);
  }
  return JSON.stringify({
    output: { message: { role: 'assistant', content } },
    stopReason: converseStopReason(reply.finish),
    usage: converseUsage(reply.usage),
    metrics: { latencyMs: ctx.latencyMs?.() ?? 0 },
  });
}
