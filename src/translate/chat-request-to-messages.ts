// Direction 1, request: an OpenAI chat-completions body → an Anthropic messages body for the upstream.
import type { AnthropicTool, AnthropicToolChoice, MessagesRequest, ThinkingConfig } from './wire-anthropic.ts';
import type { ChatRequest, ReasoningEffort } from './wire-openai.ts';
import { chatHistoryToMessages } from './chat-history-to-messages.ts';
import { isObject, num, str } from './narrow.ts';
import { EFFORT_TO_THINKING_BUDGET, MIN_THINKING_BUDGET } from './reasoning.ts';
import { jsonFormatOf, jsonToolName, type JsonMode, type StructuredOutputMode } from './structured-output.ts';
import { TranslationError } from './translation-error.ts';

export interface ChatToMessagesOptions {
  /** The model name the deployment sends upstream. */
  upstreamModel: string;
  /** max_tokens when the chat request names neither max_tokens nor max_completion_tokens (config defaultMaxTokens). */
  defaultMaxTokens: number;
  /** How response_format is sent; see structured-output.ts. Default `tool`. */
  structuredOutput?: StructuredOutputMode;
}

export interface ChatToMessagesResult {
  body: MessagesRequest;
  /** What was changed or dropped, e.g. `temperature clamped to 1`; the lead surfaces these in a header. */
  adjustments: string[];
  /** Non-null when the reply's forced tool call must be turned back into JSON text. */
  jsonMode: JsonMode | null;
}

/** Chat fields with no Anthropic equivalent; dropped with no error, and named in adjustments. */
const DROPPED_FIELDS = [
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

function toolsOf(body: ChatRequest): AnthropicTool[] {
  const tools: unknown = body.tools;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new TranslationError('tools', 'tools must be an array');
  return tools.map((tool: unknown, i): AnthropicTool => {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
      throw new TranslationError(`tools[${i}].type`, 'only function tools can be sent to this model');
    }
    const fn = tool.function;
    const name = str(fn.name);
    if (name === undefined) throw new TranslationError(`tools[${i}].function.name`, 'tool name is required');
    // A parameterless tool still needs an object schema: Anthropic rejects a tool without input_schema.
    const params = isObject(fn.parameters) ? fn.parameters : {};
    const input_schema = { ...params, type: 'object', ...(params.properties === undefined ? { properties: {} } : {}) };
    const out: AnthropicTool = { name, input_schema };
    const description = str(fn.description);
    if (description !== undefined) out.description = description;
    return out;
  });
}

function toolChoiceOf(body: ChatRequest, hasTools: boolean): AnthropicToolChoice | undefined {
  const choice: unknown = body.tool_choice;
  const noParallel = body.parallel_tool_calls === false;
  if (!hasTools) return undefined;
  let out: AnthropicToolChoice | undefined;
  if (choice === undefined || choice === null || choice === 'auto') out = noParallel ? { type: 'auto' } : undefined;
  else if (choice === 'none') return { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (isObject(choice) && choice.type === 'function' && isObject(choice.function) && str(choice.function.name) !== undefined) {
    out = { type: 'tool', name: choice.function.name as string };
  } else {
    throw new TranslationError('tool_choice', 'tool_choice must be auto, none, required or a function');
  }
  if (out !== undefined && noParallel) out.disable_parallel_tool_use = true;
  return out;
}

function stopSequencesOf(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return stop.length > 0 ? stop : undefined;
  throw new TranslationError('stop', 'stop must be a string or an array of strings');
}

function thinkingOf(effort: unknown, maxTokens: number, adjustments: string[]): ThinkingConfig | undefined {
  if (effort === undefined || effort === null || effort === 'none') return undefined;
  if (typeof effort !== 'string' || !Object.hasOwn(EFFORT_TO_THINKING_BUDGET, effort)) {
    throw new TranslationError('reasoning_effort', `reasoning_effort ${String(effort)} is not supported`);
  }
  const wanted = EFFORT_TO_THINKING_BUDGET[effort as Exclude<ReasoningEffort, 'none'>];
  // Anthropic needs budget < max_tokens; the caller's max_tokens is the limit that bills, so the budget yields.
  const budget = Math.min(wanted, maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) {
    adjustments.push(`reasoning_effort ignored: max_tokens ${maxTokens} leaves no room for thinking`);
    return undefined;
  }
  if (budget !== wanted) adjustments.push(`thinking budget reduced to ${budget} to fit max_tokens`);
  return { type: 'enabled', budget_tokens: budget };
}

export function chatRequestToMessages(body: ChatRequest, opts: ChatToMessagesOptions): ChatToMessagesResult {
  if (!isObject(body) || !Array.isArray(body.messages)) throw new TranslationError('messages', 'messages must be an array');
  const adjustments: string[] = [];
  const n = num(body.n);
  if (n !== undefined && n !== 1) throw new TranslationError('n', 'only n = 1 is supported for this model');
  if (body.audio !== undefined && body.audio !== null) throw new TranslationError('audio', 'audio output is not supported for this model');
  const history = chatHistoryToMessages(body.messages, adjustments);

  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens) ?? opts.defaultMaxTokens;
  const out: MessagesRequest = { model: opts.upstreamModel, messages: history.messages, max_tokens: maxTokens };
  if (history.system !== undefined) out.system = history.system;

  const tools = toolsOf(body);
  let toolChoice = toolChoiceOf(body, tools.length > 0);
  // Anthropic refuses thinking with a forced tool call; the client's choice of tool is the contract, the
  // effort a preference, so the effort yields.
  const forced = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  const wanted = thinkingOf(body.reasoning_effort, maxTokens, forced ? [] : adjustments);
  if (forced && wanted !== undefined) adjustments.push('reasoning_effort ignored: thinking cannot be combined with a forced tool_choice');
  const thinking = forced ? undefined : wanted;
  if (thinking !== undefined) out.thinking = thinking;

  const temperature = num(body.temperature);
  if (temperature !== undefined) {
    if (thinking !== undefined) adjustments.push('temperature dropped: thinking requires the default');
    else if (temperature > 1) {
      out.temperature = 1;
      adjustments.push('temperature clamped to 1');
    } else out.temperature = Math.max(0, temperature);
  }
  const topP = num(body.top_p);
  if (topP !== undefined) {
    if (thinking !== undefined && topP < 0.95) adjustments.push('top_p dropped: thinking requires top_p >= 0.95');
    else out.top_p = topP;
  }
  const topK = num(body.top_k);
  if (topK !== undefined) {
    if (thinking !== undefined) adjustments.push('top_k dropped: thinking requires the default');
    else out.top_k = topK;
  }
  const stop = stopSequencesOf(body.stop);
  if (stop !== undefined) out.stop_sequences = stop;
  if (body.stream === true) out.stream = true;
  const user = str(body.user);
  if (user !== undefined) out.metadata = { user_id: user };

  let jsonMode: JsonMode | null = null;
  const format = jsonFormatOf(body);
  if (format !== null) {
    if (opts.structuredOutput === 'native' || thinking !== undefined) {
      out.output_config = { format: { type: 'json_schema', schema: format.schema } };
      if (format.wrapKey !== null) throw new TranslationError('response_format.json_schema.schema', 'the schema root must be an object');
    } else {
      const name = jsonToolName(tools);
      tools.push({ name, description: format.description, input_schema: format.schema });
      jsonMode = { toolName: name, wrapKey: format.wrapKey };
      // With the client's own tools present the model must stay free to call them.
      if (tools.length === 1) toolChoice = { type: 'tool', name };
    }
  }
  if (tools.length > 0) out.tools = tools;
  if (toolChoice !== undefined) out.tool_choice = toolChoice;

  for (const field of DROPPED_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) adjustments.push(`${field} dropped`);
  }
  return { body: out, adjustments, jsonMode };
}
