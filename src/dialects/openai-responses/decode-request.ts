// A POST /v1/responses body → the hub's request (client side). Fields with no hub equivalent ride in
// `extra` under their own names, so an upstream encoder names them in `x-modelgate-adjusted`; the
// conversation fields the gateway itself serves (store, previous_response_id) are not carried.
import { isObject, type JsonObject } from '../../core/json.ts';
import type {
  HubReasoning,
  HubRequest,
  HubResponseFormat,
  HubTool,
  HubToolChoice,
  ReasoningEffort,
} from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { decodeInput } from './decode-input.ts';
import { keepEcho } from './echo.ts';

/** Read here, or the gateway's own (conversation state, streaming options): never in `extra`. */
const HANDLED = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'stream_options',
  'store',
  'previous_response_id',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'max_output_tokens',
  'temperature',
  'top_p',
  'metadata',
  'user',
  'include',
]);
const EFFORTS = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function toolsOf(raw: unknown, extra: JsonObject): HubTool[] {
  if (!Array.isArray(raw)) return [];
  const tools: HubTool[] = [];
  raw.forEach((t: unknown, i) => {
    if (!isObject(t)) throw new TranslationError(`tools[${i}]`, `tools[${i}] must be an object`);
    if (t.type === 'function') {
      const tool: HubTool = {
        name: String(t.name),
        kind: 'function',
        inputSchema: isObject(t.parameters) ? t.parameters : { type: 'object', properties: {} },
      };
      if (typeof t.description === 'string') tool.description = t.description;
      if (typeof t.strict === 'boolean') tool.strict = t.strict;
      tools.push(tool);
    } else if (t.type === 'custom') {
      const tool: HubTool = { name: String(t.name), kind: 'custom' };
      if (typeof t.description === 'string') tool.description = t.description;
      if (t.format !== undefined) tool.format = t.format;
      tools.push(tool);
    } else {
      // OpenAI's hosted tools (web_search, file_search, …) run on OpenAI's side: no other upstream has them.
      extra[`tools[${i}] (${String(t.type)})`] = t;
    }
  });
  return tools;
}

function toolChoiceOf(raw: unknown, extra: JsonObject): HubToolChoice | undefined {
  if (raw === 'auto' || raw === 'none' || raw === 'required') return { type: raw };
  if (isObject(raw) && (raw.type === 'function' || raw.type === 'custom') && typeof raw.name === 'string')
    return { type: 'tool', name: raw.name };
  // Forcing one of OpenAI's hosted tools (file_search, web_search, …) asks for what only OpenAI runs: a
  // hosted tool merely offered is left out (and named), but one the caller insists on is refused.
  if (isObject(raw) && typeof raw.type === 'string' && raw.type !== 'allowed_tools')
    throw new TranslationError(
      'tool_choice',
      `tool_choice forces OpenAI's hosted ${raw.type} tool, which this model's provider does not run`,
    );
  if (raw !== undefined && raw !== null) extra.tool_choice = raw;
  return undefined;
}

function formatOf(text: unknown, extra: JsonObject): HubResponseFormat | undefined {
  if (!isObject(text)) return undefined;
  if (text.verbosity !== undefined && text.verbosity !== null) extra['text.verbosity'] = text.verbosity;
  const f = text.format;
  if (!isObject(f)) return undefined;
  if (f.type === 'text') return { type: 'text' };
  if (f.type === 'json_object') return { type: 'json' };
  if (f.type === 'json_schema') {
    const out: HubResponseFormat = { type: 'json', schema: isObject(f.schema) ? f.schema : undefined };
    if (typeof f.name === 'string') out.name = f.name;
    if (typeof f.description === 'string') out.description = f.description;
    if (typeof f.strict === 'boolean') out.strict = f.strict;
    return out;
  }
  throw new TranslationError('text.format.type', `text.format of type ${String(f.type)} cannot be sent to this model`);
}

function reasoningOf(body: JsonObject, extra: JsonObject): HubReasoning | undefined {
  const out: HubReasoning = {};
  const r = body.reasoning;
  if (isObject(r)) {
    if (typeof r.effort === 'string') {
      if (!EFFORTS.has(r.effort))
        throw new TranslationError(
          'reasoning.effort',
          `reasoning.effort ${r.effort} is not one of ${[...EFFORTS].join(', ')}`,
        );
      out.effort = r.effort as ReasoningEffort;
    }
    if (r.summary === 'auto' || r.summary === 'concise' || r.summary === 'detailed') out.summary = r.summary;
  }
  if (Array.isArray(body.include)) {
    for (const v of body.include) {
      if (v === 'reasoning.encrypted_content') out.includeEncrypted = true;
      else extra[`include ${String(v)}`] = v;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function decodeResponsesRequest(body: Record<string, unknown>): HubRequest {
  const extra: JsonObject = {};
  const { system, messages, phased } = decodeInput(body.input);
  if (phased > 0) extra['input[].phase'] = phased;
  const instructions =
    typeof body.instructions === 'string' && body.instructions !== ''
      ? [{ type: 'text' as const, text: body.instructions }]
      : [];
  const req: HubRequest = {
    system: [...instructions, ...system],
    messages,
    tools: toolsOf(body.tools, extra),
    stream: body.stream === true,
    extra,
    from: 'responses',
  };
  const choice = toolChoiceOf(body.tool_choice, extra);
  if (choice !== undefined) req.toolChoice = choice;
  if (typeof body.parallel_tool_calls === 'boolean') req.parallelToolCalls = body.parallel_tool_calls;
  if (typeof body.max_output_tokens === 'number') req.maxOutputTokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') req.temperature = body.temperature;
  if (typeof body.top_p === 'number') req.topP = body.top_p;
  const format = formatOf(body.text, extra);
  if (format !== undefined) req.responseFormat = format;
  const reasoning = reasoningOf(body, extra);
  if (reasoning !== undefined) req.reasoning = reasoning;
  if (typeof body.user === 'string') req.user = body.user;
  if (isObject(body.metadata)) req.metadata = body.metadata as Record<string, string>;
  for (const [k, v] of Object.entries(body)) if (!HANDLED.has(k) && v !== undefined && v !== null) extra[k] = v;
  keepEcho(req, body);
  return req;
}
