// Chat `messages[]` → Anthropic `system` + `messages[]`, repairing history the Anthropic rules would reject:
// system items hoisted in order, consecutive same-role turns merged, tool results as tool_result blocks in a
// user turn (placed first), a leading assistant turn given a user turn before it, empty turns dropped.
import type { ContentBlock, MessageParam, TextBlock, ToolResultBlock } from './wire-anthropic.ts';
import type { ChatMessage } from './wire-openai.ts';
import { imageUrlToSource } from './images.ts';
import { toAnthropicToolId } from './ids.ts';
import { isObject, str, tryParseJson } from './narrow.ts';
import { TranslationError } from './translation-error.ts';

/** Text of the user turn inserted before a conversation that opens with an assistant turn. */
export const LEADING_USER_PLACEHOLDER = '(conversation continues)';

export interface HistoryResult {
  system: string | TextBlock[] | undefined;
  messages: MessageParam[];
}

interface Turn {
  role: 'user' | 'assistant';
  blocks: ContentBlock[];
}

function textPartsOf(content: ChatMessage['content'], param: string): string[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) throw new TranslationError(param, 'content must be a string or an array of parts');
  return content.map((part: unknown, i) => {
    if (!isObject(part)) throw new TranslationError(`${param}[${i}]`, 'each content part must be an object');
    if (part.type === 'text' || part.type === 'refusal') {
      const field = part.type;
      const text = str(part[field]);
      if (text !== undefined) return text;
      throw new TranslationError(`${param}[${i}].${field}`, `${field} must be a string`);
    }
    throw new TranslationError(`${param}[${i}].type`, `only text parts are allowed here, got ${String(part.type)}`);
  });
}

function userBlocks(content: ChatMessage['content'], param: string): ContentBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw new TranslationError(param, 'content must be a string or an array of parts');
  const out: ContentBlock[] = [];
  content.forEach((part: unknown, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw new TranslationError(at, 'each content part must be an object');
    if (part.type === 'text') {
      const text = str(part.text);
      if (text === undefined) throw new TranslationError(`${at}.text`, 'text must be a string');
      if (text.length > 0) out.push({ type: 'text', text });
    } else if (part.type === 'image_url') {
      const url = isObject(part.image_url) ? str(part.image_url.url) : undefined;
      if (url === undefined) throw new TranslationError(`${at}.image_url.url`, 'image_url.url is required');
      out.push({ type: 'image', source: imageUrlToSource(url, `${at}.image_url.url`) });
    } else if (part.type === 'file' && isObject(part.file) && str(part.file.file_data)?.startsWith('data:application/pdf;base64,')) {
      const data = (part.file.file_data as string).slice('data:application/pdf;base64,'.length);
      out.push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } });
    } else {
      throw new TranslationError(`${at}.type`, `content part type ${String(part.type)} cannot be sent to this model`);
    }
  });
  return out;
}

function assistantBlocks(msg: ChatMessage, param: string): ContentBlock[] {
  const out: ContentBlock[] = thinkingBlocksOf(msg.thinking_blocks, `${param}.thinking_blocks`);
  const signature = str(msg.reasoning_signature);
  const reasoning = str(msg.reasoning_content);
  // A thinking block is only accepted back with its signature; without one the text is dropped. The
  // whole blocks, when the client kept them, are the exact record and win.
  if (out.length === 0 && signature !== undefined && signature.length > 0 && reasoning !== undefined) {
    out.push({ type: 'thinking', thinking: reasoning, signature });
  }
  const texts = textPartsOf(msg.content, `${param}.content`);
  // A refusal the model gave is what it said in that turn: kept as its text when there is no other.
  const refusal = str(msg.refusal);
  if (texts.every((t) => t.length === 0) && refusal !== undefined) texts.push(refusal);
  for (const text of texts) {
    if (text.length > 0) out.push({ type: 'text', text });
  }
  const calls: unknown = msg.tool_calls;
  if (calls === undefined || calls === null) return out;
  if (!Array.isArray(calls)) throw new TranslationError(`${param}.tool_calls`, 'tool_calls must be an array');
  calls.forEach((call: unknown, i) => {
    const at = `${param}.tool_calls[${i}]`;
    if (!isObject(call)) throw new TranslationError(at, 'each tool call must be an object');
    if (call.type !== undefined && call.type !== 'function') {
      throw new TranslationError(`${at}.type`, `tool call type ${String(call.type)} cannot be sent to this model`);
    }
    const fn = call.function;
    if (!isObject(fn)) throw new TranslationError(`${at}.function`, 'tool call function must be an object');
    const name = str(fn.name);
    if (name === undefined) throw new TranslationError(`${at}.function.name`, 'tool call function name must be a string');
    const args = fn.arguments ?? '';
    if (typeof args !== 'string') throw new TranslationError(`${at}.function.arguments`, 'tool call arguments must be a string of JSON');
    const input = args.trim().length === 0 ? {} : tryParseJson(args);
    if (!isObject(input)) {
      throw new TranslationError(`${at}.function.arguments`, 'tool call arguments must be a JSON object');
    }
    out.push({ type: 'tool_use', id: toAnthropicToolId(str(call.id)), name, input });
  });
  return out;
}

/** `thinking_blocks` as this gateway wrote them on a reply, back to Anthropic blocks, unchanged. */
function thinkingBlocksOf(blocks: unknown, param: string): ContentBlock[] {
  if (blocks === undefined || blocks === null) return [];
  if (!Array.isArray(blocks)) throw new TranslationError(param, 'thinking_blocks must be an array');
  return blocks.map((b: unknown, i): ContentBlock => {
    if (isObject(b) && b.type === 'thinking' && typeof b.thinking === 'string' && typeof b.signature === 'string' && b.signature.length > 0) {
      return { type: 'thinking', thinking: b.thinking, signature: b.signature };
    }
    if (isObject(b) && b.type === 'redacted_thinking' && typeof b.data === 'string') return { type: 'redacted_thinking', data: b.data };
    throw new TranslationError(`${param}[${i}]`, 'each thinking block must be {type:"thinking", thinking, signature} or {type:"redacted_thinking", data}');
  });
}

function toolResult(msg: ChatMessage, param: string): ToolResultBlock {
  const id = str(msg.tool_call_id);
  if (id === undefined) throw new TranslationError(`${param}.tool_call_id`, 'tool messages need tool_call_id');
  const content = msg.content;
  if (content === undefined || content === null || typeof content === 'string') {
    return { type: 'tool_result', tool_use_id: toAnthropicToolId(id), content: content ?? '' };
  }
  const blocks = textPartsOf(content, `${param}.content`)
    .filter((t) => t.length > 0)
    .map((text): TextBlock => ({ type: 'text', text }));
  return { type: 'tool_result', tool_use_id: toAnthropicToolId(id), content: blocks };
}

function push(turns: Turn[], role: Turn['role'], blocks: ContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last !== undefined && last.role === role) last.blocks.push(...blocks);
  else turns.push({ role, blocks });
}

function finishTurn(turn: Turn): MessageParam {
  // Anthropic wants tool_result blocks ahead of any other user content in the turn.
  const blocks =
    turn.role === 'user'
      ? [...turn.blocks.filter((b) => b.type === 'tool_result'), ...turn.blocks.filter((b) => b.type !== 'tool_result')]
      : turn.blocks;
  const only = blocks[0];
  if (blocks.length === 1 && only.type === 'text' && (only as TextBlock).cache_control === undefined) {
    return { role: turn.role, content: (only as TextBlock).text };
  }
  return { role: turn.role, content: blocks };
}

export function chatHistoryToMessages(messages: readonly ChatMessage[], adjustments: string[]): HistoryResult {
  const system: string[] = [];
  const turns: Turn[] = [];
  let named = 0;
  messages.forEach((msg, i) => {
    const param = `messages[${i}]`;
    if (!isObject(msg)) throw new TranslationError(param, 'each message must be an object');
    switch (msg.role) {
      case 'system':
      case 'developer':
        for (const text of textPartsOf(msg.content, `${param}.content`)) if (text.length > 0) system.push(text);
        if (turns.length > 0) adjustments.push(`${param}: system message moved to the top-level system prompt`);
        break;
      case 'user':
        if (str(msg.name) !== undefined) named++;
        push(turns, 'user', userBlocks(msg.content, `${param}.content`));
        break;
      case 'assistant':
        push(turns, 'assistant', assistantBlocks(msg, param));
        break;
      case 'tool':
        push(turns, 'user', [toolResult(msg, param)]);
        break;
      default:
        throw new TranslationError(`${param}.role`, `role ${String(msg.role)} cannot be sent to this model`);
    }
  });
  if (turns.length === 0) {
    throw new TranslationError('messages', 'messages must contain at least one user or assistant message with content');
  }
  // Anthropic turns carry no speaker: consecutive users' turns merge into one without their names.
  if (named > 0) adjustments.push(`name dropped from ${named} user message${named === 1 ? '' : 's'}`);
  if (turns[0].role === 'assistant') {
    turns.unshift({ role: 'user', blocks: [{ type: 'text', text: LEADING_USER_PLACEHOLDER }] });
    adjustments.push('user turn inserted before leading assistant message');
  }
  pairToolResults(turns, adjustments);
  trimFinalAssistant(turns, adjustments);
  return {
    system: system.length === 0 ? undefined : system.length === 1 ? system[0] : system.map((text) => ({ type: 'text', text })),
    messages: turns.map(finishTurn),
  };
}

/** Text of the tool_result added for a tool call the history never answered. */
export const MISSING_TOOL_RESULT = 'No result was provided for this tool call.';

/**
 * Anthropic requires every tool_use to be answered by a tool_result in the very next user turn, and every
 * tool_result to answer a tool_use of the turn before. Clients that trim history break both; a missing result
 * is filled in as an error result, and an orphan result becomes plain text, so the request stays valid.
 */
function pairToolResults(turns: Turn[], adjustments: string[]): void {
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i];
    if (turn.role !== 'user') continue;
    const prev = i > 0 ? turns[i - 1] : undefined;
    const asked = new Set(prev?.blocks.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id) ?? []);
    turn.blocks = turn.blocks.map((b): ContentBlock => {
      if (b.type !== 'tool_result') return b;
      const result = b as ToolResultBlock;
      if (asked.delete(result.tool_use_id)) return b;
      adjustments.push(`tool result ${result.tool_use_id} has no matching tool call; sent as text`);
      const content = typeof result.content === 'string' ? result.content : textOfResult(result.content);
      return { type: 'text', text: `Result of tool call ${result.tool_use_id}: ${content}` };
    });
    if (asked.size > 0) addMissingResults(turn, asked, adjustments);
  }
}

function addMissingResults(turn: Turn, ids: Set<string>, adjustments: string[]): void {
  const results = [...ids].map((id): ToolResultBlock => ({ type: 'tool_result', tool_use_id: id, content: MISSING_TOOL_RESULT, is_error: true }));
  turn.blocks = [...results, ...turn.blocks];
  for (const id of ids) adjustments.push(`tool call ${id} had no result; an error result was added`);
}

function textOfResult(content: ToolResultBlock['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((b) => (b.type === 'text' ? [(b as TextBlock).text] : [])).join('\n');
}

/** A final assistant turn is a prefill, and Anthropic rejects a prefill that ends in whitespace. */
function trimFinalAssistant(turns: Turn[], adjustments: string[]): void {
  const last = turns.at(-1);
  if (last === undefined || last.role !== 'assistant') return;
  const block = last.blocks.at(-1);
  if (block === undefined || block.type !== 'text') return;
  const text = (block as TextBlock).text;
  const trimmed = text.trimEnd();
  if (trimmed === text) return;
  adjustments.push('trailing whitespace trimmed from final assistant message');
  if (trimmed.length > 0) (block as TextBlock).text = trimmed;
  else last.blocks.pop();
  if (last.blocks.length === 0) turns.pop();
}
