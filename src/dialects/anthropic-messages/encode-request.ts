// The hub's request → an Anthropic messages body for an Anthropic-style upstream: history repaired
// (encode-history.ts), reasoning effort as a thinking budget that fits max_tokens, sampling within
// Anthropic's ranges, a JSON reply format as a forced tool or native output_config, cache markers kept.
import { capCacheBreakpoints } from './cache-breakpoints.ts';
import type { EncodedRequest, UpstreamOptions } from '../../spec/codec.ts';
import type { HubRequest, HubTool, HubToolChoice } from '../../spec/form.ts';
import { refusedParam } from '../../spec/refused-params.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { CUSTOM_TOOL_SCHEMA } from '../../spec/custom-tool.ts';
import { encodeHistory } from './encode-history.ts';
import { jsonFormatOf, jsonToolName, type JsonMode } from './structured-output.ts';
import { EFFORT_TO_THINKING_BUDGET, MIN_THINKING_BUDGET } from './thinking.ts';
import type { AnthropicTool, AnthropicToolChoice, MessagesRequest, ThinkingConfig } from './wire.ts';

/** What the reply decoders must know of how the request was written. */
export interface MessagesReplyState {
  /** Non-null when the reply's forced tool call is the JSON reply text. */
  jsonMode: JsonMode | null;
}

function toolOf(tool: HubTool, i: number): AnthropicTool {
  if (tool.kind !== 'function' && tool.kind !== 'custom')
    throw new TranslationError(`tools[${i}].type`, 'only function tools can be sent to this model');
  // A parameterless tool still needs an object schema: Anthropic rejects a tool without input_schema.
  // A custom (free-form) tool is a function with one string parameter, `input`.
  const params = tool.kind === 'custom' ? CUSTOM_TOOL_SCHEMA : (tool.inputSchema ?? {});
  const out: AnthropicTool = {
    name: tool.name,
    input_schema: { ...params, type: 'object', ...(params.properties === undefined ? { properties: {} } : {}) },
  };
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.cache !== undefined) out.cache_control = { ...tool.cache };
  return out;
}

function toolChoiceOf(choice: HubToolChoice | undefined, noParallel: boolean): AnthropicToolChoice | undefined {
  let out: AnthropicToolChoice | undefined;
  if (choice === undefined || choice.type === 'auto') out = noParallel ? { type: 'auto' } : undefined;
  else if (choice.type === 'none') return { type: 'none' };
  else if (choice.type === 'required') out = { type: 'any' };
  else out = { type: 'tool', name: choice.name };
  if (out !== undefined && noParallel) out.disable_parallel_tool_use = true;
  return out;
}

function thinkingOf(req: HubRequest, maxTokens: number, adjustments: string[]): ThinkingConfig | undefined {
  const r = req.reasoning;
  if (r === undefined || r.effort === 'none') return undefined;
  const wanted = r.budgetTokens ?? (r.effort === undefined ? undefined : EFFORT_TO_THINKING_BUDGET[r.effort]);
  if (wanted === undefined) return r.adaptive === true ? { type: 'adaptive' } : undefined;
  // Anthropic needs budget < max_tokens; the caller's max_tokens is the limit that bills, so the budget yields.
  const budget = Math.min(wanted, maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) {
    adjustments.push(`reasoning_effort ignored: max_tokens ${maxTokens} leaves no room for thinking`);
    return undefined;
  }
  if (budget !== wanted) adjustments.push(`thinking budget reduced to ${budget} to fit max_tokens`);
  return { type: 'enabled', budget_tokens: budget };
}

/** Temperature, top_p and top_k within what Anthropic accepts, and what thinking requires. */
function sampling(req: HubRequest, out: MessagesRequest, opts: UpstreamOptions, adjustments: string[]): void {
  const thinking = out.thinking !== undefined;
  const t = req.temperature;
  if (t !== undefined && !refusedParam(opts, 'temperature', adjustments)) {
    if (thinking) adjustments.push('temperature dropped: thinking requires the default');
    else if (t > 1) {
      out.temperature = 1;
      adjustments.push('temperature clamped to 1');
    } else out.temperature = Math.max(0, t);
  }
  const p = req.topP;
  if (p !== undefined && !refusedParam(opts, 'top_p', adjustments)) {
    if (thinking && p < 0.95) adjustments.push('top_p dropped: thinking requires top_p >= 0.95');
    else out.top_p = p;
  }
  const k = req.topK;
  if (k !== undefined && !refusedParam(opts, 'top_k', adjustments)) {
    if (thinking) adjustments.push('top_k dropped: thinking requires the default');
    else out.top_k = k;
  }
}

export function encodeMessagesRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest {
  const adjustments: string[] = [];
  const history = encodeHistory(req.system, req.messages, adjustments);
  const maxTokens = req.maxOutputTokens ?? opts.defaultMaxTokens;
  const out: MessagesRequest = { model: opts.upstreamModel, messages: history.messages, max_tokens: maxTokens };
  if (history.system !== undefined) out.system = history.system;

  const tools = req.tools.map(toolOf);
  let toolChoice = tools.length > 0 ? toolChoiceOf(req.toolChoice, req.parallelToolCalls === false) : undefined;
  // Anthropic refuses thinking with a forced tool call; the client's choice of tool is the contract, the
  // effort a preference, so the effort yields.
  const forced = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  const wanted = thinkingOf(req, maxTokens, forced ? [] : adjustments);
  if (forced && wanted !== undefined)
    adjustments.push('reasoning_effort ignored: thinking cannot be combined with a forced tool_choice');
  if (!forced && wanted !== undefined) out.thinking = wanted;
  sampling(req, out, opts, adjustments);

  if (
    req.stopSequences !== undefined &&
    req.stopSequences.length > 0 &&
    !refusedParam(opts, 'stop_sequences', adjustments)
  )
    out.stop_sequences = req.stopSequences;
  if (req.stream) out.stream = true;
  if (req.user !== undefined) out.metadata = { user_id: req.user };
  if (req.cache !== undefined) out.cache_control = { ...req.cache };

  let jsonMode: JsonMode | null = null;
  const rf = req.responseFormat;
  if (rf !== undefined && rf.type === 'json') {
    const format = jsonFormatOf(rf);
    if (opts.structuredOutput === 'native' || out.thinking !== undefined) {
      if (format.wrapKey !== null)
        throw new TranslationError('response_format.json_schema.schema', 'the schema root must be an object');
      out.output_config = { format: { type: 'json_schema', schema: format.schema } };
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

  capCacheBreakpoints(out, adjustments);
  // Fields of the client's dialect the messages API has no place for.
  for (const field of Object.keys(req.extra)) adjustments.push(`${field} dropped`);
  const replyState: MessagesReplyState = { jsonMode };
  return { body: JSON.stringify(out), adjustments, replyState };
}
