// A /v1/chat/completions body (already validated) → the hub's request. Leading system and developer
// messages are the system prompt; one later in the conversation stays a system message at its position.
// Cache markers (`cache_control`, as OpenRouter's clients send them) on parts, messages and tools are kept.
import { isObject, num, str } from '../../core/json.ts';
import type {
  HubReasoning,
  HubRequest,
  HubResponseFormat,
  HubTool,
  HubToolChoice,
  ReasoningEffort,
} from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { decodeChatMessages } from './decode-messages.ts';
import { cacheOf } from '../../spec/cache-marker.ts';
import { decodeSampling } from '../../spec/sampling.ts';

/** Chat fields with no hub equivalent: carried by name for the encoders to name as dropped. */
const EXTRA_FIELDS = [
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'seed',
  'service_tier',
  'store',
  'prediction',
  'web_search_options',
  'verbosity',
] as const;

const EFFORTS: ReadonlySet<unknown> = new Set<ReasoningEffort>([
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
]);

function toolsOf(tools: unknown): HubTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new TranslationError('tools', 'tools must be an array');
  return tools.map((tool: unknown, i): HubTool => {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
      throw new TranslationError(`tools[${i}].type`, 'only function tools can be sent to this model');
    }
    const fn = tool.function;
    const name = str(fn.name);
    if (name === undefined) throw new TranslationError(`tools[${i}].function.name`, 'tool name is required');
    const out: HubTool = { name, kind: 'function' };
    if (isObject(fn.parameters)) out.inputSchema = fn.parameters;
    const description = str(fn.description);
    if (description !== undefined) out.description = description;
    if (typeof fn.strict === 'boolean') out.strict = fn.strict;
    const cache = cacheOf(tool.cache_control);
    if (cache !== undefined) out.cache = cache;
    return out;
  });
}

function toolChoiceOf(choice: unknown): HubToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (
    isObject(choice) &&
    choice.type === 'function' &&
    isObject(choice.function) &&
    str(choice.function.name) !== undefined
  ) {
    return { type: 'tool', name: choice.function.name as string };
  }
  throw new TranslationError('tool_choice', 'tool_choice must be auto, none, required or a function');
}

function stopSequencesOf(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return stop.length > 0 ? stop : undefined;
  throw new TranslationError('stop', 'stop must be a string or an array of strings');
}

function reasoningOf(effort: unknown): HubReasoning | undefined {
  if (effort === undefined || effort === null) return undefined;
  if (!EFFORTS.has(effort))
    throw new TranslationError('reasoning_effort', `reasoning_effort ${String(effort)} is not supported`);
  return { effort: effort as ReasoningEffort };
}

function responseFormatOf(rf: unknown): HubResponseFormat | undefined {
  if (rf === undefined || rf === null) return undefined;
  if (!isObject(rf)) throw new TranslationError('response_format', 'response_format must be an object');
  if (rf.type === 'text') return { type: 'text' };
  if (rf.type === 'json_object') return { type: 'json' };
  if (rf.type === 'json_schema') {
    const js = rf.json_schema;
    if (!isObject(js))
      throw new TranslationError('response_format.json_schema', 'response_format.json_schema is required');
    const out: HubResponseFormat = { type: 'json', name: str(js.name) ?? 'response' };
    if (isObject(js.schema)) out.schema = js.schema;
    const description = str(js.description);
    if (description !== undefined) out.description = description;
    if (typeof js.strict === 'boolean') out.strict = js.strict;
    return out;
  }
  throw new TranslationError(
    'response_format.type',
    `response_format.type ${String(rf.type)} cannot be sent to this model`,
  );
}

export function decodeChatRequest(body: Record<string, unknown>): HubRequest {
  if (!isObject(body) || !Array.isArray(body.messages))
    throw new TranslationError('messages', 'messages must be an array');
  const n = num(body.n);
  if (n !== undefined && n !== 1) throw new TranslationError('n', 'only n = 1 is supported for this model');
  if (body.audio !== undefined && body.audio !== null)
    throw new TranslationError('audio', 'audio output is not supported for this model');
  const { system, messages } = decodeChatMessages(body.messages);
  const req: HubRequest = {
    system,
    messages,
    tools: toolsOf(body.tools),
    stream: body.stream === true,
    extra: {},
    from: 'chat',
  };
  if (req.tools.length > 0) {
    const choice = toolChoiceOf(body.tool_choice);
    if (choice !== undefined) req.toolChoice = choice;
    if (body.parallel_tool_calls === false) req.parallelToolCalls = false;
  }
  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens);
  if (maxTokens !== undefined) req.maxOutputTokens = maxTokens;
  const reasoning = reasoningOf(body.reasoning_effort);
  if (reasoning !== undefined) req.reasoning = reasoning;
  decodeSampling(body, req);
  const stop = stopSequencesOf(body.stop);
  if (stop !== undefined) req.stopSequences = stop;
  if (isObject(body.stream_options) && body.stream_options.include_usage === true) req.streamUsage = true;
  const user = str(body.user);
  if (user !== undefined) req.user = user;
  const format = responseFormatOf(body.response_format);
  if (format !== undefined) req.responseFormat = format;
  for (const field of EXTRA_FIELDS)
    if (body[field] !== undefined && body[field] !== null) req.extra[field] = body[field];
  return req;
}
