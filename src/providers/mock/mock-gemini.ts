// The mock model's answers in Gemini's wire format (generateContent JSON, streamGenerateContent SSE)
// and OpenAI's embeddings list: the same deterministic plan as the other dialects.
import { isObject, type JsonObject } from '../../core/json.ts';
import type { MockPlan } from './mock-reply.ts';
import { float32Base64 } from '../../dialects/embeddings/float32-base64.ts';

/** A Gemini request as the dialect-neutral planner reads one (messages, system, tools, max_tokens). */
export function plannerBodyOfGemini(body: JsonObject): JsonObject {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const messages = contents.filter(isObject).map((c) => {
    const parts = Array.isArray(c.parts) ? c.parts : [];
    const answered = parts.some((p) => isObject(p) && p.functionResponse !== undefined);
    return { role: answered ? 'tool' : c.role, content: parts };
  });
  const tools = (Array.isArray(body.tools) ? body.tools : []).flatMap((t) =>
    isObject(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [],
  );
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const system = isObject(body.systemInstruction) ? body.systemInstruction.parts : undefined;
  return { messages, system, tools, max_tokens: config.maxOutputTokens };
}

function usage(plan: MockPlan): JsonObject {
  const out = plan.tool ? 1 : plan.words.length;
  return { promptTokenCount: plan.inputTokens, candidatesTokenCount: out, totalTokenCount: plan.inputTokens + out };
}

function candidate(parts: JsonObject[], finish: string | null): JsonObject {
  const c: JsonObject = { content: { parts, role: 'model' }, index: 0 };
  if (finish !== null) c.finishReason = finish;
  return c;
}

function finishOf(plan: MockPlan): string {
  return plan.truncated ? 'MAX_TOKENS' : 'STOP';
}

function callPart(plan: MockPlan): JsonObject {
  const tool = plan.tool!;
  return { functionCall: { name: tool.name, args: JSON.parse(tool.arguments) as unknown } };
}

export function geminiMockJson(plan: MockPlan, ids: { id: string; model: string }): string {
  const parts = plan.tool ? [callPart(plan)] : [{ text: plan.words.join('') }];
  return JSON.stringify({
    candidates: [candidate(parts, finishOf(plan))],
    usageMetadata: usage(plan),
    modelVersion: ids.model,
    responseId: ids.id,
  });
}

export function geminiMockEvents(plan: MockPlan, ids: { id: string; model: string }): string[] {
  const event = (parts: JsonObject[], last: boolean): string => {
    const chunk: JsonObject = {
      candidates: [candidate(parts, last ? finishOf(plan) : null)],
      modelVersion: ids.model,
      responseId: ids.id,
    };
    if (last) chunk.usageMetadata = usage(plan);
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  };
  if (plan.tool) return [event([callPart(plan)], true)];
  if (plan.words.length === 0) return [event([{ text: '' }], true)];
  return plan.words.map((w, i) => event([{ text: w }], i === plan.words.length - 1));
}

/** OpenAI's embeddings list: a small deterministic vector per input (as floats or base64). */
export function embeddingsMockJson(body: JsonObject, model: string): string {
  const input = body.input;
  const items: unknown[] = Array.isArray(input) && !input.every((v) => typeof v === 'number') ? input : [input];
  const dims = typeof body.dimensions === 'number' && body.dimensions > 0 ? Math.min(body.dimensions, 4096) : 8;
  let tokens = 0;
  const data = items.map((item, index) => {
    const text = typeof item === 'string' ? item : JSON.stringify(item);
    tokens += Array.isArray(item) ? item.length : Math.max(1, Math.ceil(text.length / 4));
    const values = Array.from({ length: dims }, (_, i) => Math.round(Math.sin(text.length + i) * 1e6) / 1e6);
    const embedding = body.encoding_format === 'base64' ? float32Base64(values) : values;
    return { object: 'embedding', index, embedding };
  });
  return JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}
