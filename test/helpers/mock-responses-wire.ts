// The mock upstream's OpenAI Responses API (POST /v1/responses): the request read as a chat request
// for the reply planner, and the ReplyPlan written back as a response object or its event stream —
// `event:` names equal to `type`, every event numbered by `sequence_number`, as api.openai.com sends.

import { MOCK_CREATED, splitIntoChunks } from './mock-reply.ts';
import type { ReplyPlan } from './mock-reply.ts';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
}

/** The Responses request as the chat request the planner reads (tools, tool results, limits, stream). */
export function responsesAsChat(body: unknown): Json {
  if (!isObject(body)) return {};
  const messages: Json[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  const input =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input
        : [];
  for (const item of input) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      messages.push({ role: 'tool', content: textOf(item.output), tool_call_id: item.call_id });
    else if (item.type === 'function_call' || item.type === 'custom_tool_call')
      messages.push({ role: 'assistant', content: null });
    else if (item.type === undefined || item.type === 'message')
      messages.push({ role: item.role, content: textOf(item.content) });
  }
  const tools = Array.isArray(body.tools)
    ? flatTools(body.tools.filter(isObject)).map((t) => ({
        type: 'function',
        function: {
          name: t.name,
          parameters:
            t.type === 'custom' ? { type: 'object', properties: { input: { type: 'string' } } } : t.parameters,
        },
      }))
    : undefined;
  const choice = body.tool_choice;
  const toolChoice =
    isObject(choice) && typeof choice.name === 'string'
      ? { type: 'function', function: { name: choice.name } }
      : choice;
  return {
    model: body.model,
    messages,
    tools,
    tool_choice: toolChoice,
    max_tokens: body.max_output_tokens,
    stream: body.stream,
  };
}

/**
 * A `namespace` tool (Codex groups an MCP server's tools in one) as its functions, each named
 * `NAMESPACE__NAME`: the name a scripted tool call gives, split again into `namespace` and `name` on the way out.
 */
function flatTools(tools: Json[]): Json[] {
  return tools.flatMap((t) =>
    t.type === 'namespace' && Array.isArray(t.tools)
      ? t.tools.filter(isObject).map((inner) => ({ ...inner, name: `${String(t.name)}__${String(inner.name)}` }))
      : [t],
  );
}

/** The namespace a flattened name came from, when the request had one: `{ namespace, name }`. */
function namespaceOf(request: unknown, name: string): { namespace: string; name: string } | null {
  if (!isObject(request) || !Array.isArray(request.tools)) return null;
  for (const t of request.tools)
    if (isObject(t) && t.type === 'namespace' && typeof t.name === 'string' && name.startsWith(`${t.name}__`))
      return { namespace: t.name, name: name.slice(t.name.length + 2) };
  return null;
}

function usageOf(plan: ReplyPlan): Json {
  const u = plan.usage;
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens, cache_write_tokens: u.cacheWriteTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + u.outputTokens,
  };
}

function zeroUsage(): Json {
  return {
    input_tokens: 0,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 0,
  };
}

function ids(plan: ReplyPlan): { resp: string; msg: string; fc: string } {
  const n = plan.id.replace(/\D/g, '') || '0';
  return { resp: `resp_mock_${n}`, msg: `msg_mock_${n}`, fc: `fc_mock_${n}` };
}

function isCustom(body: unknown, name: string): boolean {
  return (
    isObject(body) &&
    Array.isArray(body.tools) &&
    body.tools.some((t) => isObject(t) && t.type === 'custom' && t.name === name)
  );
}

function outputItems(plan: ReplyPlan, request: unknown): Json[] {
  const id = ids(plan);
  const out: Json[] = [];
  if (plan.text !== '') {
    out.push({
      id: id.msg,
      type: 'message',
      status: plan.finish === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: plan.text }],
    });
  }
  const call = plan.toolCall;
  if (call !== undefined) {
    if (isCustom(request, call.name)) {
      const input = (JSON.parse(call.arguments) as { input?: string }).input ?? '';
      out.push({ id: id.fc, type: 'custom_tool_call', status: 'completed', call_id: call.id, name: call.name, input });
    } else
      out.push({
        id: id.fc,
        type: 'function_call',
        status: 'completed',
        arguments: call.arguments,
        call_id: call.id,
        name: call.name,
        ...namespaceOf(request, call.name),
      });
  }
  return out;
}

function responseOf(plan: ReplyPlan, request: unknown, status: string, output: Json[]): Json {
  const r = isObject(request) ? request : {};
  return {
    id: ids(plan).resp,
    object: 'response',
    created_at: MOCK_CREATED,
    status,
    completed_at: status === 'completed' ? MOCK_CREATED + 1 : null,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: plan.model,
    output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: r.store ?? true,
    temperature: r.temperature ?? 1,
    text: r.text ?? { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    // Function tools listed as api.openai.com lists them: `strict` always said (true unless sent false).
    tools: Array.isArray(r.tools)
      ? r.tools.map((t) => (isObject(t) && t.type === 'function' ? { ...t, strict: t.strict ?? true } : t))
      : [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    frequency_penalty: r.frequency_penalty ?? 0,
    presence_penalty: r.presence_penalty ?? 0,
    top_logprobs: r.top_logprobs ?? 0,
    max_tool_calls: r.max_tool_calls ?? null,
    safety_identifier: r.safety_identifier ?? null,
    prompt_cache_key: r.prompt_cache_key ?? null,
    service_tier: 'default',
    // An object on every event (OpenAI's schema has no null here): zeros until the response is done.
    usage: status === 'in_progress' ? zeroUsage() : usageOf(plan),
    metadata: r.metadata ?? {},
  };
}

export function responsesBody(plan: ReplyPlan, request: unknown): Json {
  return responseOf(plan, request, plan.finish === 'length' ? 'incomplete' : 'completed', outputItems(plan, request));
}

/**
 * `POST /v1/responses/compact` as api.openai.com answers it: the caller's user messages kept, then one
 * `compaction` item whose `encrypted_content` only the provider reads (here: the reply text, base64).
 */
export function responsesCompaction(plan: ReplyPlan, request: unknown): Json {
  const n = plan.id.replace(/\D/g, '') || '0';
  const input = isObject(request) && Array.isArray(request.input) ? request.input.filter(isObject) : [];
  const kept = input
    .filter((m) => (m.type === undefined || m.type === 'message') && m.role === 'user')
    .map((m, i) => ({
      id: `msg_mock_${n}_${i}`,
      type: 'message',
      status: 'completed',
      role: 'user',
      content: typeof m.content === 'string' ? [{ type: 'input_text', text: m.content }] : m.content,
    }));
  return {
    id: `resp_mock_${n}`,
    object: 'response.compaction',
    created_at: MOCK_CREATED,
    output: [
      ...kept,
      { id: `cmp_mock_${n}`, type: 'compaction', encrypted_content: Buffer.from(plan.text).toString('base64') },
    ],
    usage: usageOf(plan),
  };
}

/** Every SSE frame of the streamed response, each ending in a blank line. */
export function responsesFrames(plan: ReplyPlan, request: unknown): string[] {
  let seq = 0;
  const frame = (type: string, fields: Json): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`;
  const items = outputItems(plan, request);
  const frames = [
    frame('response.created', { response: responseOf(plan, request, 'in_progress', []) }),
    frame('response.in_progress', { response: responseOf(plan, request, 'in_progress', []) }),
  ];
  items.forEach((item, index) => {
    const itemId = item.id as string;
    if (item.type === 'message') {
      frames.push(
        frame('response.output_item.added', {
          output_index: index,
          item: { ...item, status: 'in_progress', content: [] },
        }),
      );
      const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
      frames.push(
        frame('response.content_part.added', { item_id: itemId, output_index: index, content_index: 0, part }),
      );
      for (const piece of splitIntoChunks(plan.text, plan.chunkCount))
        frames.push(
          frame('response.output_text.delta', {
            item_id: itemId,
            output_index: index,
            content_index: 0,
            delta: piece,
            logprobs: [],
          }),
        );
      frames.push(
        frame('response.output_text.done', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          text: plan.text,
          logprobs: [],
        }),
      );
      frames.push(
        frame('response.content_part.done', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          part: { ...part, text: plan.text },
        }),
      );
    } else if (item.type === 'function_call') {
      frames.push(
        frame('response.output_item.added', {
          output_index: index,
          item: { ...item, status: 'in_progress', arguments: '' },
        }),
      );
      const args = item.arguments as string;
      for (const piece of splitIntoChunks(args, plan.chunkCount))
        frames.push(
          frame('response.function_call_arguments.delta', { item_id: itemId, output_index: index, delta: piece }),
        );
      frames.push(
        frame('response.function_call_arguments.done', {
          item_id: itemId,
          output_index: index,
          name: item.name,
          arguments: args,
        }),
      );
    } else {
      frames.push(frame('response.output_item.added', { output_index: index, item: { ...item, input: '' } }));
      const input = item.input as string;
      for (const piece of splitIntoChunks(input, plan.chunkCount))
        frames.push(
          frame('response.custom_tool_call_input.delta', { item_id: itemId, output_index: index, delta: piece }),
        );
      frames.push(frame('response.custom_tool_call_input.done', { item_id: itemId, output_index: index, input }));
    }
    frames.push(frame('response.output_item.done', { output_index: index, item }));
  });
  const done = responsesBody(plan, request);
  frames.push(frame(done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done }));
  return frames;
}

/** In-stream failure as the Responses API writes it: `error`, then nothing. */
export function responsesErrorFrame(message: string, sequence: number): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message, param: null, sequence_number: sequence })}\n\n`;
}
