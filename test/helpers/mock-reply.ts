// Decides, from a chat request in either dialect, what the mock model "says": text or a tool call, where it
// stops (stop sequence, max_tokens) and the token counts. Dialect-neutral; the wire files render it.
//
// Token counting is deliberately simple so tests can predict it: one token per whitespace-separated word
// (`countMockTokens`). Prompt tokens are the words in every string under `messages` and `system`, except
// the values of bookkeeping keys (role, type, ids), so they are simply the words of the prompt text.

import type { MockDialect, MockUpstreamOptions, RecordedRequest } from './mock-upstream-types.ts';

export const DEFAULT_REPLY_TEXT = 'Hello from the mock upstream. This reply is deterministic.';
export const MOCK_CREATED = 1_700_000_000;

export type MockFinish = 'end' | 'length' | 'stop_sequence' | 'tool';

export interface MockToolCall {
  id: string;
  name: string;
  /** The JSON text of the input, as streamed. */
  arguments: string;
}

export interface MockUsage {
  /** Uncached prompt tokens (Anthropic input_tokens). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ReplyPlan {
  id: string;
  model: string;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean;
  text: string;
  toolCall: MockToolCall | undefined;
  finish: MockFinish;
  /** The stop sequence that ended the text, when finish is 'stop_sequence'. */
  stopSequence: string | null;
  usage: MockUsage;
  chunkCount: number;
  /** The tier the reply says it was served at: the one the request asked for by name, else the provider's default. */
  serviceTier: string | undefined;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function countMockTokens(text: string): number {
  const words = text.trim().split(/\s+/);
  return words[0] === '' ? 0 : words.length;
}

const BOOKKEEPING_KEYS = new Set(['role', 'type', 'id', 'tool_call_id', 'tool_use_id', 'cache_control']);

/** Words in the prompt text of `messages` and `system` — the mock's prompt token count. */
export function mockPromptTokens(body: unknown): number {
  if (!isObject(body)) return 0;
  let total = 0;
  const walk = (node: unknown): void => {
    if (typeof node === 'string') total += countMockTokens(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) if (!BOOKKEEPING_KEYS.has(key)) walk(value);
    }
  };
  walk(body.messages);
  walk(body.system);
  return total;
}

export function planReply(options: {
  dialect: MockDialect;
  recorded: RecordedRequest;
  config: MockUpstreamOptions;
  sequence: number;
}): ReplyPlan {
  const { dialect, recorded, config, sequence } = options;
  const body = isObject(recorded.json) ? recorded.json : {};
  const tool = chooseTool(dialect, body, config.toolName);
  const preamble = tool === undefined ? undefined : config.toolPreambleText;
  const replyText = typeof config.replyText === 'function' ? config.replyText(recorded) : config.replyText;
  const ended = applyStop(
    preamble ?? (tool === undefined ? (replyText ?? DEFAULT_REPLY_TEXT) : ''),
    stopSequences(dialect, body),
  );
  const limited = applyMaxTokens(ended.text, maxTokens(body));
  let finish: MockFinish = limited.truncated ? 'length' : ended.matched === null ? 'end' : 'stop_sequence';
  let toolCall: MockToolCall | undefined;
  if (tool !== undefined && finish === 'end') {
    const args = config.toolArguments ?? argumentsFromSchema(tool.schema);
    const prefix = dialect === 'openai' ? 'call_mock_' : 'toolu_mock_';
    toolCall = { id: `${prefix}${sequence}`, name: tool.name, arguments: JSON.stringify(args) };
    finish = 'tool';
  }
  const toolTokens = toolCall === undefined ? 0 : countMockTokens(`${toolCall.name} ${toolCall.arguments}`);
  const streamOptions = body.stream_options;
  return {
    id: dialect === 'openai' ? `chatcmpl-mock-${sequence}` : `msg_mock_${sequence}`,
    model: typeof body.model === 'string' ? body.model : 'mock-model',
    stream: body.stream === true,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    text: limited.text,
    toolCall,
    finish,
    stopSequence: finish === 'stop_sequence' ? ended.matched : null,
    usage: {
      inputTokens: mockPromptTokens(body),
      outputTokens: countMockTokens(limited.text) + toolTokens,
      cacheReadTokens: config.cacheReadTokens ?? 0,
      cacheWriteTokens: config.cacheWriteTokens ?? 0,
    },
    chunkCount: Math.max(1, config.chunkCount ?? 3),
    serviceTier: typeof body.service_tier === 'string' && body.service_tier !== 'auto' ? body.service_tier : undefined,
  };
}

interface ChosenTool {
  name: string;
  schema: unknown;
}

function chooseTool(dialect: MockDialect, body: Json, only: string | undefined): ChosenTool | undefined {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  if (tools.length === 0 || lastMessageIsToolResult(dialect, body)) return undefined;
  const choice = body.tool_choice;
  if (choice === 'none' || (isObject(choice) && choice.type === 'none')) return undefined;
  const all = tools.map((t): ChosenTool => {
    if (dialect === 'anthropic') return { name: String(t.name), schema: t.input_schema };
    const fn = isObject(t.function) ? t.function : {};
    return { name: String(fn.name), schema: fn.parameters };
  });
  if (only !== undefined) return all.find((t) => t.name === only);
  let wanted: unknown;
  if (isObject(choice))
    wanted = dialect === 'anthropic' ? choice.name : isObject(choice.function) ? choice.function.name : undefined;
  return all.find((t) => t.name === wanted) ?? all[0];
}

function lastMessageIsToolResult(dialect: MockDialect, body: Json): boolean {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = messages[messages.length - 1];
  if (!isObject(last)) return false;
  if (dialect === 'openai') return last.role === 'tool';
  return Array.isArray(last.content) && last.content.some((b) => isObject(b) && b.type === 'tool_result');
}

function stopSequences(dialect: MockDialect, body: Json): string[] {
  const raw = dialect === 'openai' ? body.stop : body.stop_sequences;
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
}

function maxTokens(body: Json): number | undefined {
  const raw = body.max_completion_tokens ?? body.max_tokens;
  return typeof raw === 'number' ? raw : undefined;
}

/** Cuts the text before the earliest stop sequence; the sequence itself is not part of the reply. */
function applyStop(text: string, sequences: string[]): { text: string; matched: string | null } {
  let best: { at: number; seq: string } | undefined;
  for (const seq of sequences) {
    const at = text.indexOf(seq);
    if (at !== -1 && (best === undefined || at < best.at)) best = { at, seq };
  }
  return best === undefined ? { text, matched: null } : { text: text.slice(0, best.at), matched: best.seq };
}

function applyMaxTokens(text: string, max: number | undefined): { text: string; truncated: boolean } {
  if (max === undefined || countMockTokens(text) <= max) return { text, truncated: false };
  const words = text.match(/\s*\S+/g) ?? [];
  return { text: words.slice(0, Math.max(0, max)).join(''), truncated: true };
}

function argumentsFromSchema(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(schema) || !isObject(schema.properties)) return out;
  const required = Array.isArray(schema.required) ? schema.required : Object.keys(schema.properties);
  for (const name of required) {
    if (typeof name !== 'string') continue;
    const prop = schema.properties[name];
    out[name] = sampleValue(isObject(prop) ? prop : {});
  }
  return out;
}

function sampleValue(prop: Json): unknown {
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return prop.enum[0];
  switch (Array.isArray(prop.type) ? prop.type[0] : prop.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'mock';
  }
}

/** Splits text into at most `count` non-empty pieces of near-equal length that join back to it. */
export function splitIntoChunks(text: string, count: number): string[] {
  const n = Math.min(count, text.length);
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n)));
  return out;
}
