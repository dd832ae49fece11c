// The mock upstream refuses a tool result that answers no tool call, as every real provider does (each
// with a 400 and its own words): chat completions wants a `tool` message to follow an assistant message
// whose `tool_calls` name its id, Anthropic a `tool_result` to answer a `tool_use` of the message before,
// and the Responses API a `function_call_output` to answer a `function_call` of the conversation (one
// continued by `previous_response_id` is not checked: the mock keeps no responses).

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** Chat completions: each `tool` message answers a call of the nearest assistant message before it. */
function chatOrphan(body: Json): string | null {
  let calls = new Set<string>();
  for (const m of list(body.messages)) {
    if (m.role === 'assistant') calls = new Set(list(m.tool_calls).map((c) => String(c.id)));
    else if (m.role === 'tool' && !calls.has(String(m.tool_call_id)))
      return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
  }
  return null;
}

/** Anthropic: each `tool_result` answers a `tool_use` of the assistant message right before its own. */
function anthropicOrphan(body: Json): string | null {
  const messages = list(body.messages);
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'user') continue;
    const before = messages[i - 1];
    const uses = new Set(
      before?.role === 'assistant'
        ? list(before.content)
            .filter((b) => b.type === 'tool_use')
            .map((b) => String(b.id))
        : [],
    );
    for (const [j, b] of list(m.content).entries())
      if (b.type === 'tool_result' && !uses.has(String(b.tool_use_id)))
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
  }
  return null;
}

/** Responses: each `function_call_output` answers a `function_call` earlier in `input`. */
function responsesOrphan(body: Json): string | null {
  if (typeof body.previous_response_id === 'string') return null;
  const calls = new Set<string>();
  for (const item of list(body.input)) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') calls.add(String(item.call_id));
    else if (
      (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') &&
      !calls.has(String(item.call_id))
    )
      return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
  }
  return null;
}

/** The provider's 400 message for a tool result that answers no call, or null when every one answers one. */
export function orphanToolResult(dialect: 'openai' | 'anthropic' | 'responses', body: unknown): string | null {
  if (!isObject(body)) return null;
  if (dialect === 'openai') return chatOrphan(body);
  if (dialect === 'anthropic') return anthropicOrphan(body);
  return responsesOrphan(body);
}
