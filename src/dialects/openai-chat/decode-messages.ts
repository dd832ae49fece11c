// Chat `messages[]` → the hub's system prompt and conversation, one hub message per chat message in
// order (leading system and developer messages become the system prompt). Checks what the hub relies on
// and names the offending field; repairs nothing (the encoder whose upstream needs repair does it).
import { isObject, str, tryParseJson } from '../../core/json.ts';
import { cacheOf } from '../../spec/cache-marker.ts';
import type {
  AssistantPart,
  CacheMarker,
  FilePart,
  HubMessage,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  UserPart,
} from '../../spec/form.ts';
import { uncarry } from '../../spec/reasoning-carrier.ts';
import { TranslationError } from '../../spec/translation-error.ts';

/** The image types chat accepts as data URLs (and every upstream reads). */
export const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;
const PDF_DATA = 'data:application/pdf;base64,';

function imagePart(url: string, param: string): FilePart {
  const m = DATA_URL.exec(url);
  if (m !== null) {
    const mediaType = m[1].toLowerCase() === 'image/jpg' ? 'image/jpeg' : m[1].toLowerCase();
    if (!IMAGE_TYPES.includes(mediaType)) {
      throw new TranslationError(
        param,
        `image media type ${m[1]} is not supported by this model; use jpeg, png, gif or webp`,
      );
    }
    return { type: 'file', mediaType, data: { base64: m[2] } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'file', mediaType: 'image/*', data: { url } };
  throw new TranslationError(param, 'image_url.url must be an http(s) URL or a base64 data URL');
}

function withCache<P extends TextPart | FilePart | ToolCallPart>(part: P, raw: unknown): P {
  const cache = cacheOf(raw);
  if (cache !== undefined) part.cache = cache;
  return part;
}

/** Text and refusal parts only (system, developer, assistant and tool content). */
function textParts(content: unknown, param: string): TextPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new TranslationError(param, 'content must be a string or an array of parts');
  return content.map((part: unknown, i): TextPart => {
    if (!isObject(part)) throw new TranslationError(`${param}[${i}]`, 'each content part must be an object');
    if (part.type === 'text' || part.type === 'refusal') {
      const field = part.type;
      const text = str(part[field]);
      if (text !== undefined) return withCache<TextPart>({ type: 'text', text }, part.cache_control);
      throw new TranslationError(`${param}[${i}].${field}`, `${field} must be a string`);
    }
    throw new TranslationError(`${param}[${i}].type`, `only text parts are allowed here, got ${String(part.type)}`);
  });
}

function userParts(content: unknown, param: string): UserPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw new TranslationError(param, 'content must be a string or an array of parts');
  const out: UserPart[] = [];
  content.forEach((part: unknown, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw new TranslationError(at, 'each content part must be an object');
    if (part.type === 'text') {
      const text = str(part.text);
      if (text === undefined) throw new TranslationError(`${at}.text`, 'text must be a string');
      if (text.length > 0) out.push(withCache<TextPart>({ type: 'text', text }, part.cache_control));
    } else if (part.type === 'image_url') {
      const url = isObject(part.image_url) ? str(part.image_url.url) : undefined;
      if (url === undefined) throw new TranslationError(`${at}.image_url.url`, 'image_url.url is required');
      const image = imagePart(url, `${at}.image_url.url`);
      const detail = isObject(part.image_url) ? str(part.image_url.detail) : undefined;
      if (detail !== undefined) image.detail = detail;
      out.push(withCache(image, part.cache_control));
    } else if (part.type === 'file' && isObject(part.file) && str(part.file.file_data)?.startsWith(PDF_DATA)) {
      const file: FilePart = {
        type: 'file',
        mediaType: 'application/pdf',
        data: { base64: (part.file.file_data as string).slice(PDF_DATA.length) },
      };
      const filename = str(part.file.filename);
      if (filename !== undefined) file.filename = filename;
      out.push(withCache(file, part.cache_control));
    } else {
      throw new TranslationError(`${at}.type`, `content part type ${String(part.type)} cannot be sent to this model`);
    }
  });
  return out;
}

/**
 * `thinking_blocks` as this gateway wrote them on a reply, back unchanged: Anthropic's blocks, or another
 * provider's reasoning in the gateway's token (reasoning-carrier.ts).
 */
function thinkingBlocks(blocks: unknown, param: string): ReasoningPart[] {
  if (blocks === undefined || blocks === null) return [];
  if (!Array.isArray(blocks)) throw new TranslationError(param, 'thinking_blocks must be an array');
  return blocks.map((b: unknown, i): ReasoningPart => {
    if (
      isObject(b) &&
      b.type === 'thinking' &&
      typeof b.thinking === 'string' &&
      typeof b.signature === 'string' &&
      b.signature.length > 0
    ) {
      return (
        uncarry(b.signature, `${param}[${i}].signature`) ?? {
          type: 'reasoning',
          text: b.thinking,
          signature: b.signature,
          origin: 'messages',
        }
      );
    }
    if (isObject(b) && b.type === 'redacted_thinking' && typeof b.data === 'string')
      return { type: 'reasoning', text: '', redacted: b.data, origin: 'messages' };
    throw new TranslationError(
      `${param}[${i}]`,
      'each thinking block must be {type:"thinking", thinking, signature} or {type:"redacted_thinking", data}',
    );
  });
}

function assistantParts(msg: Record<string, unknown>, param: string): AssistantPart[] {
  const out: AssistantPart[] = thinkingBlocks(msg.thinking_blocks, `${param}.thinking_blocks`);
  const reasoning = str(msg.reasoning_content);
  const signature = str(msg.reasoning_signature);
  // The whole blocks, when the client kept them, are the exact record and win.
  if (out.length === 0 && reasoning !== undefined && (reasoning.length > 0 || (signature ?? '').length > 0)) {
    // A bare signature is Anthropic's (LiteLLM's convention), unless it is the gateway's token.
    const carried = signature === undefined ? null : uncarry(signature, `${param}.reasoning_signature`);
    const part: ReasoningPart = carried ?? { type: 'reasoning', text: reasoning };
    if (carried === null && signature !== undefined && signature.length > 0) {
      part.signature = signature;
      part.origin = 'messages';
    }
    out.push(part);
  }
  const texts = textParts(msg.content, `${param}.content`);
  // A refusal the model gave is what it said in that turn: kept as its text when there is no other.
  const refusal = str(msg.refusal);
  if (texts.every((t) => t.text.length === 0) && refusal !== undefined) texts.push({ type: 'text', text: refusal });
  for (const t of texts) if (t.text.length > 0) out.push(t);
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
    if (name === undefined)
      throw new TranslationError(`${at}.function.name`, 'tool call function name must be a string');
    const args = fn.arguments ?? '';
    if (typeof args !== 'string')
      throw new TranslationError(`${at}.function.arguments`, 'tool call arguments must be a string of JSON');
    const empty = args.trim().length === 0;
    if (!empty && !isObject(tryParseJson(args)))
      throw new TranslationError(`${at}.function.arguments`, 'tool call arguments must be a JSON object');
    out.push(
      withCache<ToolCallPart>(
        { type: 'tool-call', id: str(call.id) ?? '', name, input: empty ? '{}' : args },
        call.cache_control,
      ),
    );
  });
  return out;
}

function toolResult(msg: Record<string, unknown>, param: string): ToolResultPart {
  const id = str(msg.tool_call_id);
  if (id === undefined) throw new TranslationError(`${param}.tool_call_id`, 'tool messages need tool_call_id');
  const content = msg.content;
  if (content === undefined || content === null || typeof content === 'string') {
    const text = typeof content === 'string' ? content : '';
    return {
      type: 'tool-result',
      callId: id,
      content: text.length > 0 ? [{ type: 'text', text }] : [],
      plainText: true,
    };
  }
  return {
    type: 'tool-result',
    callId: id,
    content: textParts(content, `${param}.content`).filter((t) => t.text.length > 0),
  };
}

/** A message-level cache marker (LiteLLM's form) sits on the message's last part, as Anthropic places it. */
function markLast(parts: readonly AssistantPart[], raw: unknown): void {
  const cache = cacheOf(raw);
  const last = parts.at(-1);
  if (cache !== undefined && last !== undefined && last.type !== 'reasoning' && last.cache === undefined)
    last.cache = cache;
}

export function decodeChatMessages(list: readonly unknown[]): { system: TextPart[]; messages: HubMessage[] } {
  const system: TextPart[] = [];
  const messages: HubMessage[] = [];
  list.forEach((msg, i) => {
    const param = `messages[${i}]`;
    if (!isObject(msg)) throw new TranslationError(param, 'each message must be an object');
    switch (msg.role) {
      case 'system':
      case 'developer': {
        const parts = textParts(msg.content, `${param}.content`).filter((t) => t.text.length > 0);
        markLast(parts, msg.cache_control);
        if (messages.length === 0) system.push(...parts);
        else messages.push({ role: 'system', content: parts });
        break;
      }
      case 'user': {
        const content = userParts(msg.content, `${param}.content`);
        markLast(content, msg.cache_control);
        const name = str(msg.name);
        messages.push(name === undefined ? { role: 'user', content } : { role: 'user', content, name });
        break;
      }
      case 'assistant': {
        const content = assistantParts(msg, param);
        markLast(content, msg.cache_control);
        messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const result = toolResult(msg, param);
        const cache = cacheOf(msg.cache_control);
        if (cache !== undefined) result.cache = cache;
        messages.push({ role: 'tool', content: [result] });
        break;
      }
      default:
        throw new TranslationError(`${param}.role`, `role ${String(msg.role)} cannot be sent to this model`);
    }
  });
  return { system, messages };
}
