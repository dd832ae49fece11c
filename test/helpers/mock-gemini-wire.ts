// The mock upstream's Gemini side and OpenAI's embeddings, in the real wire formats: generateContent
// JSON, streamGenerateContent SSE (`?alt=sse`: `data: {…}\r\n\r\n` chunks, each with the usage so far,
// no terminator), countTokens, batchEmbedContents, the model list; and OpenAI's /v1/embeddings list
// (floats, or float32 little-endian base64 when asked, as the openai SDK asks by default).

import type { ReplyPlan } from './mock-reply.ts';
import { countMockTokens, mockPromptTokens, splitIntoChunks } from './mock-reply.ts';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The thought signature the mock puts on its function calls (Gemini 2.5+ sends one; it must come back). */
export const MOCK_THOUGHT_SIGNATURE = 'c2lnbmF0dXJlLW9mLXRoZS1tb2Nr';

/** `/v1beta/models/{model}:{method}` → its parts, or null. */
export function geminiPath(path: string): { model: string; method: string } | null {
  const m = /^\/v1(?:beta)?\/models\/([^:]+):(\w+)$/.exec(path);
  return m === null ? null : { model: decodeURIComponent(m[1]), method: m[2] };
}

/**
 * A Gemini request as the chat-shaped reply planner reads one: contents → messages (a turn answering a
 * function call is a `tool` message), functionDeclarations → tools, generationConfig → limits.
 */
export function chatShapeOfGemini(body: unknown, model: string, stream: boolean): Json {
  const b = isObject(body) ? body : {};
  const contents = Array.isArray(b.contents) ? b.contents.filter(isObject) : [];
  const messages = contents.map((c) => {
    const parts = Array.isArray(c.parts) ? c.parts.filter(isObject) : [];
    const answer = parts.some((p) => p.functionResponse !== undefined);
    const text = (p: Json): string =>
      typeof p.text === 'string'
        ? p.text
        : isObject(p.functionResponse)
          ? JSON.stringify(p.functionResponse.response)
          : '';
    return { role: answer ? 'tool' : c.role === 'model' ? 'assistant' : 'user', content: parts.map(text).join(' ') };
  });
  const declarations = (Array.isArray(b.tools) ? b.tools.filter(isObject) : []).flatMap((t) =>
    Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isObject) : [],
  );
  const tools = declarations.map((d) => ({
    type: 'function',
    function: { name: d.name, parameters: d.parameters ?? d.parametersJsonSchema },
  }));
  const config = isObject(b.generationConfig) ? b.generationConfig : {};
  const system =
    isObject(b.systemInstruction) && Array.isArray(b.systemInstruction.parts)
      ? b.systemInstruction.parts
          .filter(isObject)
          .map((p) => p.text)
          .join(' ')
      : undefined;
  const mode =
    isObject(b.toolConfig) && isObject(b.toolConfig.functionCallingConfig)
      ? b.toolConfig.functionCallingConfig.mode
      : undefined;
  return {
    model,
    stream,
    messages,
    system,
    tools: tools.length > 0 ? tools : undefined,
    tool_choice: mode === 'NONE' ? 'none' : undefined,
    stop: config.stopSequences,
    max_tokens: config.maxOutputTokens,
  };
}

const FINISH: Record<ReplyPlan['finish'], string> = {
  end: 'STOP',
  stop_sequence: 'STOP',
  length: 'MAX_TOKENS',
  tool: 'STOP',
};

function usageOf(plan: ReplyPlan, outputTokens: number): Json {
  const u = plan.usage;
  const prompt = u.inputTokens + u.cacheReadTokens;
  const out: Json = {
    promptTokenCount: prompt,
    totalTokenCount: prompt + outputTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
  };
  if (outputTokens > 0) out.candidatesTokenCount = outputTokens;
  if (u.cacheReadTokens > 0) out.cachedContentTokenCount = u.cacheReadTokens;
  return out;
}

function callPart(plan: ReplyPlan): Json {
  const call = plan.toolCall!;
  return {
    functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown },
    thoughtSignature: MOCK_THOUGHT_SIGNATURE,
  };
}

export function geminiResponse(plan: ReplyPlan): Json {
  const parts: Json[] = [];
  if (plan.text !== '') parts.push({ text: plan.text });
  if (plan.toolCall !== undefined) parts.push(callPart(plan));
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: FINISH[plan.finish], index: 0 }],
    usageMetadata: usageOf(plan, plan.usage.outputTokens),
    modelVersion: plan.model,
    responseId: plan.id,
  };
}

/** Every SSE frame of the streamed reply: text pieces, then the function call, the last with finishReason. */
export function geminiFrames(plan: ReplyPlan): string[] {
  const pieces: Json[][] = splitIntoChunks(plan.text, plan.chunkCount).map((t) => [{ text: t }]);
  if (plan.toolCall !== undefined) pieces.push([callPart(plan)]);
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  let sent = 0;
  return pieces.map((parts, i) => {
    const last = i === pieces.length - 1;
    sent = last
      ? plan.usage.outputTokens
      : sent + countMockTokens(parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join(''));
    const candidate: Json = { content: { parts, role: 'model' }, index: 0 };
    if (last) candidate.finishReason = FINISH[plan.finish];
    const chunk = {
      candidates: [candidate],
      usageMetadata: usageOf(plan, Math.min(sent, plan.usage.outputTokens)),
      modelVersion: plan.model,
      responseId: plan.id,
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}

export function geminiTokenCount(body: unknown): Json {
  const b = isObject(body) ? (isObject(body.generateContentRequest) ? body.generateContentRequest : body) : {};
  const total = mockPromptTokens(chatShapeOfGemini(b, '', false));
  return { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] };
}

/** A small deterministic vector for a text: its length in the first place, then fixed values. */
export function mockVector(text: string, dims = 4): number[] {
  return Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : 0.25 * (i + 1)));
}

export function geminiBatchEmbed(body: unknown): Json {
  const requests = isObject(body) && Array.isArray(body.requests) ? body.requests.filter(isObject) : [];
  return {
    embeddings: requests.map((r) => {
      const parts = isObject(r.content) && Array.isArray(r.content.parts) ? r.content.parts.filter(isObject) : [];
      const text = parts.map((p) => p.text).join('');
      return { values: mockVector(text, typeof r.outputDimensionality === 'number' ? r.outputDimensionality : 4) };
    }),
  };
}

export function geminiModelList(models: string[]): Json {
  return {
    models: models.map((m) => ({
      name: `models/${m}`,
      version: '001',
      displayName: m,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    })),
  };
}

/** OpenAI's embeddings list; usage is one token a word, or the token arrays' lengths. */
export function openaiEmbeddings(body: unknown): Json {
  const b = isObject(body) ? body : {};
  const input = b.input;
  const items: unknown[] =
    typeof input === 'string'
      ? [input]
      : Array.isArray(input) && input.every((v) => typeof v === 'number')
        ? [input]
        : Array.isArray(input)
          ? input
          : [];
  const dims = typeof b.dimensions === 'number' ? b.dimensions : 4;
  let tokens = 0;
  const data = items.map((item, index) => {
    const text = typeof item === 'string' ? item : '';
    tokens += Array.isArray(item) ? item.length : countMockTokens(text);
    const values = mockVector(text, dims);
    let embedding: number[] | string = values;
    if (b.encoding_format === 'base64') {
      const buf = Buffer.alloc(values.length * 4);
      values.forEach((v, i) => buf.writeFloatLE(v, i * 4));
      embedding = buf.toString('base64');
    }
    return { object: 'embedding', index, embedding };
  });
  return { object: 'list', data, model: b.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
