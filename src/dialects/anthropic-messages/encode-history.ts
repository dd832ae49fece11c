// The hub's conversation → Anthropic `system` + `messages[]`, repairing what Anthropic's rules would
// reject: system messages inside the conversation hoisted in order, consecutive same-role turns merged,
// tool results as tool_result blocks in a user turn (placed first), a leading assistant turn given a user
// turn before it, unanswered calls and orphan results repaired, empty turns dropped. Cache markers become
// `cache_control` on the block they sit on.
import type {
  AssistantPart,
  CacheMarker,
  FilePart,
  HubMessage,
  TextPart,
  ToolResultPart,
  UserPart,
} from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { isObject, tryParseJson } from '../../core/json.ts';
import { toAnthropicToolId } from './ids.ts';
import type { ContentBlock, ImageSource, MessageParam, TextBlock, ToolResultBlock } from './wire.ts';

/** Text of the user turn inserted before a conversation that opens with an assistant turn. */
export const LEADING_USER_PLACEHOLDER = '(conversation continues)';

/** Text of the tool_result added for a tool call the history never answered. */
export const MISSING_TOOL_RESULT = 'No result was provided for this tool call.';

export interface HistoryResult {
  system: string | TextBlock[] | undefined;
  messages: MessageParam[];
}

interface Turn {
  role: 'user' | 'assistant';
  blocks: ContentBlock[];
}

function withCache<B extends ContentBlock>(block: B, cache: CacheMarker | undefined): B {
  if (cache !== undefined) (block as { cache_control?: CacheMarker }).cache_control = { ...cache };
  return block;
}

function textBlock(part: TextPart): TextBlock {
  return withCache({ type: 'text', text: part.text }, part.cache);
}

function fileBlock(part: FilePart): ContentBlock {
  const data = part.data;
  if (part.mediaType === 'application/pdf' && 'base64' in data) {
    const doc: ContentBlock = {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: data.base64 },
    };
    if (part.title !== undefined) (doc as { title?: string }).title = part.title;
    return withCache(doc, part.cache);
  }
  if ('text' in data)
    return withCache(
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: data.text } },
      part.cache,
    );
  if (part.mediaType.startsWith('image/')) {
    let source: ImageSource | undefined;
    if ('base64' in data) source = { type: 'base64', media_type: part.mediaType, data: data.base64 };
    else if ('url' in data) source = { type: 'url', url: data.url };
    if (source !== undefined) return withCache({ type: 'image', source }, part.cache);
  }
  throw new TranslationError('messages', `a ${part.mediaType} file of this form cannot be sent to this model`);
}

function userBlocks(parts: readonly UserPart[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const part of parts) {
    if (part.type === 'text') {
      if (part.text.length > 0) out.push(textBlock(part));
    } else out.push(fileBlock(part));
  }
  return out;
}

/** `foreign` counts the reasoning another provider signed or encrypted, which is left out. */
function assistantBlocks(parts: readonly AssistantPart[], foreign: { n: number }): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'reasoning':
        // Only Anthropic can verify its thinking: a block goes back with its signature or not at all, and
        // another provider's reasoning (its origin says whose) is never sent here.
        if (part.origin !== 'messages') {
          if ((part.signature ?? '') !== '' || part.redacted !== undefined || part.encrypted !== undefined) foreign.n++;
          break;
        }
        if (part.redacted !== undefined) out.push({ type: 'redacted_thinking', data: part.redacted });
        else if (part.signature !== undefined && part.signature.length > 0)
          out.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        break;
      case 'text':
        if (part.text.length > 0) out.push(textBlock(part));
        break;
      case 'tool-call': {
        // A custom tool's free-form input goes as the one string parameter it was declared with.
        const input =
          part.kind === 'custom'
            ? { input: part.input }
            : part.input.trim().length === 0
              ? {}
              : tryParseJson(part.input);
        out.push(
          withCache(
            { type: 'tool_use', id: toAnthropicToolId(part.id), name: part.name, input: isObject(input) ? input : {} },
            part.cache,
          ),
        );
        break;
      }
      case 'file':
        out.push(fileBlock(part));
        break;
    }
  }
  return out;
}

function toolResult(part: ToolResultPart): ToolResultBlock {
  let content: ToolResultBlock['content'];
  if (part.plainText === true) content = part.content.length === 0 ? '' : (part.content[0] as TextPart).text;
  else {
    content = part.content.flatMap((p): Array<TextBlock | ContentBlock> => {
      if (p.type === 'text') return p.text.length > 0 ? [textBlock(p)] : [];
      return [fileBlock(p)];
    }) as ToolResultBlock['content'];
  }
  const out: ToolResultBlock = { type: 'tool_result', tool_use_id: toAnthropicToolId(part.callId), content };
  if (part.isError === true) out.is_error = true;
  return withCache(out, part.cache);
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

export function encodeHistory(
  system: readonly TextPart[],
  messages: readonly HubMessage[],
  adjustments: string[],
): HistoryResult {
  const systemParts: TextPart[] = system.filter((p) => p.text.length > 0);
  const turns: Turn[] = [];
  let named = 0;
  let hoisted = 0;
  const foreign = { n: 0 };
  for (const msg of messages) {
    switch (msg.role) {
      case 'system':
        // The messages API has one system prompt; a system message inside the conversation joins it.
        for (const part of msg.content) if (part.text.length > 0) systemParts.push(part);
        if (turns.length > 0) hoisted++;
        break;
      case 'user':
        if (msg.name !== undefined) named++;
        push(turns, 'user', userBlocks(msg.content));
        break;
      case 'assistant':
        push(turns, 'assistant', assistantBlocks(msg.content, foreign));
        break;
      case 'tool':
        push(turns, 'user', msg.content.map(toolResult));
        break;
    }
  }
  if (turns.length === 0) {
    throw new TranslationError('messages', 'messages must contain at least one user or assistant message with content');
  }
  if (hoisted > 0)
    adjustments.push(
      `${hoisted} system message${hoisted === 1 ? '' : 's'} inside the conversation moved to the top-level system prompt`,
    );
  if (foreign.n > 0) adjustments.push('reasoning from another model left out of the history');
  // Anthropic turns carry no speaker: consecutive users' turns merge into one without their names.
  if (named > 0) adjustments.push(`name dropped from ${named} user message${named === 1 ? '' : 's'}`);
  if (turns[0].role === 'assistant') {
    turns.unshift({ role: 'user', blocks: [{ type: 'text', text: LEADING_USER_PLACEHOLDER }] });
    adjustments.push('user turn inserted before leading assistant message');
  }
  pairToolResults(turns, adjustments);
  trimFinalAssistant(turns, adjustments);
  return { system: systemOf(systemParts), messages: turns.map(finishTurn) };
}

/** One system text stays a string; several, or any with a cache marker, become blocks. */
function systemOf(parts: readonly TextPart[]): string | TextBlock[] | undefined {
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && parts[0].cache === undefined) return parts[0].text;
  return parts.map(textBlock);
}

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
  const results = [...ids].map(
    (id): ToolResultBlock => ({ type: 'tool_result', tool_use_id: id, content: MISSING_TOOL_RESULT, is_error: true }),
  );
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
