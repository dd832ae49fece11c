// A /v1/messages body (already validated) → the hub's request. Each message maps to one hub message, but
// a user turn's tool_result blocks become a `tool` message ahead of the rest of that turn; a system
// message inside the conversation (Claude Code sends one) stays a system message at its position.
import { isObject, num, str } from '../../core/json.ts';
import type {
  AssistantPart,
  FilePart,
  HubMessage,
  HubReasoning,
  HubRequest,
  HubTool,
  HubToolChoice,
  TextPart,
  ToolResultPart,
  UserPart,
} from '../../spec/form.ts';
import { cacheOf } from '../../spec/cache-marker.ts';
import { decodeSampling } from '../../spec/sampling.ts';
import { uncarry } from '../../spec/reasoning-carrier.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { effortForBudget } from './thinking.ts';

/** Messages fields with no hub equivalent: carried by name for the encoders to name as dropped. */
const EXTRA_FIELDS = ['service_tier', 'container', 'inference_geo', 'mcp_servers', 'context_management'] as const;

function textPart(block: Record<string, unknown>, param: string): TextPart {
  const text = str(block.text);
  if (text === undefined) throw new TranslationError(`${param}.text`, 'text must be a string');
  const part: TextPart = { type: 'text', text };
  const cache = cacheOf(block.cache_control);
  if (cache !== undefined) part.cache = cache;
  return part;
}

function systemOf(system: unknown, param: string): TextPart[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system.length > 0 ? [{ type: 'text', text: system }] : [];
  if (!Array.isArray(system)) throw new TranslationError(param, `${param} must be a string or an array of text blocks`);
  return system.map((b: unknown, i): TextPart => {
    if (!isObject(b) || b.type !== 'text')
      throw new TranslationError(`${param}[${i}].type`, 'system blocks must be text');
    return textPart(b, `${param}[${i}]`);
  });
}

/** Images and documents the hub carries; anything else is a 400 naming the block. */
function filePart(block: Record<string, unknown>, param: string): FilePart | TextPart {
  const src = block.source;
  const cache = cacheOf(block.cache_control);
  let part: FilePart | TextPart | undefined;
  if (block.type === 'image' && isObject(src)) {
    if (src.type === 'base64' && typeof src.media_type === 'string' && typeof src.data === 'string')
      part = { type: 'file', mediaType: src.media_type, data: { base64: src.data } };
    else if (src.type === 'url' && typeof src.url === 'string')
      part = { type: 'file', mediaType: 'image/*', data: { url: src.url } };
  } else if (block.type === 'document' && isObject(src)) {
    if (src.type === 'text' && typeof src.data === 'string') part = { type: 'text', text: src.data };
    else if (src.type === 'base64' && src.media_type === 'application/pdf' && typeof src.data === 'string') {
      part = { type: 'file', mediaType: 'application/pdf', data: { base64: src.data } };
      if (typeof block.title === 'string') part.title = block.title;
    }
  }
  if (part === undefined)
    throw new TranslationError(`${param}.type`, `content block ${String(block.type)} cannot be sent to this model`);
  if (cache !== undefined) part.cache = cache;
  return part;
}

/** The content blocks of a turn, each checked to be an object. */
function blocksOf(content: unknown, param: string): Array<Record<string, unknown>> {
  if (!Array.isArray(content))
    throw new TranslationError(param, 'content must be a string or an array of content blocks');
  content.forEach((block: unknown, i) => {
    if (!isObject(block)) throw new TranslationError(`${param}[${i}]`, 'each content block must be an object');
  });
  return content as Array<Record<string, unknown>>;
}

function toolResult(block: Record<string, unknown>, param: string): ToolResultPart {
  const part: ToolResultPart = { type: 'tool-result', callId: str(block.tool_use_id) ?? '', content: [] };
  const content = block.content;
  if (typeof content === 'string') {
    part.content.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((b: unknown, i) => {
      if (!isObject(b)) return;
      const at = `${param}.content[${i}]`;
      if (b.type === 'text') part.content.push(textPart(b, at));
      else if (b.type === 'image') part.content.push(filePart(b, at));
      else throw new TranslationError(`${at}.type`, `tool_result block ${String(b.type)} cannot be sent to this model`);
    });
  } else if (content !== undefined && content !== null) {
    throw new TranslationError(`${param}.content`, 'tool_result content must be a string or blocks');
  }
  if (block.is_error === true) part.isError = true;
  const cache = cacheOf(block.cache_control);
  if (cache !== undefined) part.cache = cache;
  return part;
}

function userMessages(content: unknown, param: string, out: HubMessage[]): void {
  if (typeof content === 'string') {
    out.push({ role: 'user', content: [{ type: 'text', text: content }] });
    return;
  }
  const results: ToolResultPart[] = [];
  const parts: UserPart[] = [];
  blocksOf(content, `${param}.content`).forEach((block, i) => {
    const at = `${param}.content[${i}]`;
    if (block.type === 'tool_result') results.push(toolResult(block, at));
    else if (block.type === 'text') parts.push(textPart(block, at));
    else parts.push(filePart(block, at));
  });
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (parts.length > 0) out.push({ role: 'user', content: parts });
}

function assistantMessage(content: unknown, param: string): HubMessage {
  if (typeof content === 'string') return { role: 'assistant', content: [{ type: 'text', text: content }] };
  const parts: AssistantPart[] = [];
  blocksOf(content, `${param}.content`).forEach((block, i) => {
    const at = `${param}.content[${i}]`;
    if (block.type === 'tool_use') {
      const name = str(block.name);
      if (name === undefined) throw new TranslationError(`${at}.name`, 'tool_use name must be a string');
      const part: AssistantPart = {
        type: 'tool-call',
        id: str(block.id) ?? '',
        name,
        input: JSON.stringify(isObject(block.input) ? block.input : {}),
      };
      const cache = cacheOf(block.cache_control);
      if (cache !== undefined) part.cache = cache;
      parts.push(part);
    } else if (block.type === 'text') parts.push(textPart(block, at));
    else if (block.type === 'thinking') {
      // Another provider's reasoning comes back in the gateway's token (reasoning-carrier.ts).
      const signature = str(block.signature) ?? '';
      parts.push(
        uncarry(signature, `${at}.signature`) ?? {
          type: 'reasoning',
          text: str(block.thinking) ?? '',
          signature,
          origin: 'messages',
        },
      );
    } else if (block.type === 'redacted_thinking')
      parts.push({ type: 'reasoning', text: '', redacted: str(block.data) ?? '', origin: 'messages' });
    else throw new TranslationError(`${at}.type`, `content block ${String(block.type)} cannot be sent to this model`);
  });
  return { role: 'assistant', content: parts };
}

function toolsOf(tools: unknown): HubTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new TranslationError('tools', 'tools must be an array');
  return tools.map((t: unknown, i): HubTool => {
    if (!isObject(t) || (t.type !== undefined && t.type !== null && t.type !== 'custom')) {
      const type = isObject(t) ? String(t.type) : 'unknown';
      throw new TranslationError(`tools[${i}].type`, `server tool ${type} cannot be used with this deployment`);
    }
    const name = str(t.name);
    if (name === undefined) throw new TranslationError(`tools[${i}].name`, 'tool name is required');
    const tool: HubTool = { name, kind: 'function' };
    if (isObject(t.input_schema)) tool.inputSchema = t.input_schema;
    const description = str(t.description);
    if (description !== undefined) tool.description = description;
    const cache = cacheOf(t.cache_control);
    if (cache !== undefined) tool.cache = cache;
    return tool;
  });
}

function toolChoiceOf(choice: unknown, req: HubRequest): void {
  if (!isObject(choice)) return;
  if (choice.disable_parallel_tool_use === true) req.parallelToolCalls = false;
  let mapped: HubToolChoice;
  if (choice.type === 'auto') mapped = { type: 'auto' };
  else if (choice.type === 'any') mapped = { type: 'required' };
  else if (choice.type === 'none') mapped = { type: 'none' };
  else if (choice.type === 'tool' && str(choice.name) !== undefined)
    mapped = { type: 'tool', name: choice.name as string };
  else throw new TranslationError('tool_choice.type', `tool_choice ${String(choice.type)} is not supported`);
  req.toolChoice = mapped;
}

const EFFORT_LEVELS: ReadonlySet<unknown> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);
const THINKING_TYPES: ReadonlySet<unknown> = new Set(['enabled', 'disabled', 'adaptive']);

/** The request's thinking and effort settings, checked here: another dialect writes them as a field. */
function reasoningOf(thinking: unknown, effort: unknown): HubReasoning | undefined {
  if (effort !== undefined && effort !== null && !EFFORT_LEVELS.has(effort)) {
    throw new TranslationError('output_config.effort', 'effort must be one of low, medium, high, xhigh, max');
  }
  if (thinking !== undefined && thinking !== null) {
    if (!isObject(thinking) || !THINKING_TYPES.has(thinking.type))
      throw new TranslationError('thinking.type', 'thinking.type must be enabled, disabled or adaptive');
    if (thinking.type === 'enabled' && num(thinking.budget_tokens) === undefined) {
      throw new TranslationError('thinking.budget_tokens', 'thinking.budget_tokens must be a number');
    }
  }
  const out: HubReasoning = {};
  if (isObject(thinking) && thinking.type === 'enabled') {
    out.budgetTokens = thinking.budget_tokens as number;
    out.effort = effortForBudget(out.budgetTokens);
  } else if (isObject(thinking) && thinking.type === 'adaptive') {
    out.adaptive = true;
    out.effort = 'medium';
  }
  // An explicit effort wins over what a budget stands for.
  if (typeof effort === 'string') out.effort = effort as HubReasoning['effort'];
  return out.effort === undefined ? undefined : out;
}

export function decodeMessagesRequest(body: Record<string, unknown>): HubRequest {
  if (!isObject(body) || !Array.isArray(body.messages))
    throw new TranslationError('messages', 'messages must be an array');
  const req: HubRequest = {
    system: systemOf(body.system, 'system'),
    messages: [],
    tools: [],
    stream: body.stream === true,
    extra: {},
    from: 'messages',
  };
  body.messages.forEach((msg: unknown, i) => {
    const param = `messages[${i}]`;
    if (!isObject(msg)) throw new TranslationError(param, 'each message must be an object');
    if (msg.role === 'user') userMessages(msg.content, param, req.messages);
    else if (msg.role === 'assistant') req.messages.push(assistantMessage(msg.content, param));
    else if (msg.role === 'system')
      req.messages.push({ role: 'system', content: systemOf(msg.content, `${param}.content`) });
    else throw new TranslationError(`${param}.role`, 'role must be user, assistant or system');
  });
  const maxTokens = num(body.max_tokens);
  if (maxTokens !== undefined) req.maxOutputTokens = maxTokens;
  decodeSampling(body, req);
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0)
    req.stopSequences = body.stop_sequences.filter((s): s is string => typeof s === 'string');
  req.tools = toolsOf(body.tools);
  if (req.tools.length > 0) toolChoiceOf(body.tool_choice, req);
  const config: unknown = body.output_config;
  if (config !== undefined && config !== null && !isObject(config))
    throw new TranslationError('output_config', 'output_config must be an object');
  const reasoning = reasoningOf(body.thinking, isObject(config) ? config.effort : undefined);
  if (reasoning !== undefined) req.reasoning = reasoning;
  const format = isObject(config) ? config.format : undefined;
  if (isObject(format) && isObject(format.schema)) req.responseFormat = { type: 'json', schema: format.schema };
  const user = isObject(body.metadata) ? str(body.metadata.user_id) : undefined;
  if (user !== undefined) req.user = user;
  const cache = cacheOf(body.cache_control);
  if (cache !== undefined) req.cache = cache;
  for (const field of EXTRA_FIELDS)
    if (body[field] !== undefined && body[field] !== null) req.extra[field] = body[field];
  return req;
}
