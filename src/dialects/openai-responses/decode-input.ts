// Responses `input` items → hub messages. Items the model wrote (assistant messages, reasoning, function
// and custom tool calls) that follow each other are one assistant turn; tool outputs that follow each
// other are one tool message; leading system and developer messages join the system prompt.
import { GatewayError } from '../../core/errors.ts';
import { isObject, type JsonObject } from '../../core/json.ts';
import type { AssistantPart, FilePart, HubMessage, TextPart, ToolResultPart, UserPart } from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { uncarry } from '../../spec/reasoning-carrier.ts';
import { summaryOfCompaction } from './compact.ts';

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

function filePartOf(part: JsonObject, where: string): FilePart {
  if (part.type === 'input_image') {
    const detail = typeof part.detail === 'string' ? { detail: part.detail } : {};
    if (typeof part.image_url === 'string') {
      const m = DATA_URL.exec(part.image_url);
      if (m !== null) return { type: 'file', mediaType: m[1], data: { base64: m[2] }, ...detail };
      return { type: 'file', mediaType: 'image/*', data: { url: part.image_url }, ...detail };
    }
    if (typeof part.file_id === 'string')
      return { type: 'file', mediaType: 'image/*', data: { fileId: part.file_id }, ...detail };
    throw new TranslationError(`${where}.image_url`, `${where}: an input_image needs image_url or file_id`);
  }
  const filename = typeof part.filename === 'string' ? { filename: part.filename } : {};
  if (typeof part.file_data === 'string') {
    const m = DATA_URL.exec(part.file_data);
    if (m !== null) return { type: 'file', mediaType: m[1], data: { base64: m[2] }, ...filename };
    return { type: 'file', mediaType: 'application/pdf', data: { base64: part.file_data }, ...filename };
  }
  if (typeof part.file_url === 'string')
    return { type: 'file', mediaType: 'application/pdf', data: { url: part.file_url }, ...filename };
  if (typeof part.file_id === 'string')
    return { type: 'file', mediaType: 'application/pdf', data: { fileId: part.file_id }, ...filename };
  throw new TranslationError(`${where}.file_data`, `${where}: an input_file needs file_data, file_url or file_id`);
}

/** Message content (a string or parts) as hub parts. */
export function contentParts(content: unknown, where: string): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    throw new TranslationError(where, `${where} must be a string or an array of content parts`);
  return content.map((raw: unknown, j): UserPart => {
    const at = `${where}[${j}]`;
    if (!isObject(raw)) throw new TranslationError(at, `${at} must be an object`);
    switch (raw.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        return { type: 'text', text: typeof raw.text === 'string' ? raw.text : '' };
      case 'refusal':
        return { type: 'text', text: typeof raw.refusal === 'string' ? raw.refusal : '' };
      case 'input_image':
      case 'input_file':
        return filePartOf(raw, at);
      default:
        throw new TranslationError(
          `${at}.type`,
          `${at}: content of type ${String(raw.type)} cannot be sent to this model`,
        );
    }
  });
}

function reasoningOf(item: JsonObject, where: string): AssistantPart {
  // Reasoning of another provider's, in the gateway's token: back as that provider wrote it.
  if (typeof item.encrypted_content === 'string') {
    const carried = uncarry(item.encrypted_content, `${where}.encrypted_content`);
    if (carried !== null) return carried;
  }
  const texts: string[] = [];
  const from = Array.isArray(item.content) && item.content.length > 0 ? item.content : item.summary;
  if (Array.isArray(from)) for (const s of from) if (isObject(s) && typeof s.text === 'string') texts.push(s.text);
  const part: AssistantPart = { type: 'reasoning', text: texts.join('\n\n'), origin: 'responses' };
  if (typeof item.encrypted_content === 'string') part.encrypted = item.encrypted_content;
  if (typeof item.id === 'string') part.id = item.id;
  return part;
}

export interface DecodedInput {
  /** Leading system and developer messages, for the system prompt. */
  system: TextPart[];
  messages: HubMessage[];
  /** Assistant messages that carried a `phase` (commentary or final answer): no other dialect has one. */
  phased: number;
}

export function decodeInput(input: unknown): DecodedInput {
  const out: DecodedInput = { system: [], messages: [], phased: 0 };
  if (typeof input === 'string') {
    out.messages.push({ role: 'user', content: [{ type: 'text', text: input }] });
    return out;
  }
  if (!Array.isArray(input)) return out;
  const names = new Map<string, string>();
  const last = (): HubMessage | undefined => out.messages.at(-1);
  const assistant = (): AssistantPart[] => {
    const m = last();
    if (m?.role === 'assistant') return m.content;
    const content: AssistantPart[] = [];
    out.messages.push({ role: 'assistant', content });
    return content;
  };
  const toolResults = (): ToolResultPart[] => {
    const m = last();
    if (m?.role === 'tool') return m.content;
    const content: ToolResultPart[] = [];
    out.messages.push({ role: 'tool', content });
    return content;
  };
  input.forEach((raw: unknown, i) => {
    const where = `input[${i}]`;
    if (!isObject(raw)) throw new TranslationError(where, `${where} must be an object`);
    const type = raw.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = raw.role;
        const parts = contentParts(raw.content, `${where}.content`);
        if (role === 'assistant') {
          assistant().push(...parts);
          if (typeof raw.phase === 'string') out.phased++;
        } else if (role === 'system' || role === 'developer') {
          const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
          if (out.messages.length === 0) out.system.push({ type: 'text', text });
          else out.messages.push({ role: 'system', content: [{ type: 'text', text }] });
        } else out.messages.push({ role: 'user', content: parts });
        return;
      }
      case 'reasoning':
        assistant().push(reasoningOf(raw, where));
        return;
      case 'function_call':
      case 'custom_tool_call': {
        const custom = type === 'custom_tool_call';
        const callId = String(raw.call_id);
        names.set(callId, String(raw.name));
        const args = custom ? raw.input : raw.arguments;
        assistant().push({
          type: 'tool-call',
          id: callId,
          name: String(raw.name),
          input: typeof args === 'string' ? args : '',
          kind: custom ? 'custom' : 'function',
        });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = String(raw.call_id);
        // The Responses API refuses an output that answers no call of the conversation; so does every
        // route here, rather than each upstream in its own words (or not at all, once repaired).
        if (!names.has(callId))
          throw new GatewayError('invalid_request', {
            message: `No tool call found for function call output with call_id ${callId}.`,
            param: 'input',
          });
        const content = contentParts(raw.output, `${where}.output`).filter(
          (p): p is TextPart | FilePart => p.type === 'text' || p.type === 'file',
        );
        const result: ToolResultPart = { type: 'tool-result', callId, content };
        const name = names.get(callId);
        if (name !== undefined) result.name = name;
        toolResults().push(result);
        return;
      }
      case 'compaction': {
        // The gateway's own compaction (compact.ts) is the summary it wrote; OpenAI's only OpenAI reads.
        const summary = summaryOfCompaction(raw.encrypted_content);
        if (summary === null)
          throw new TranslationError(
            `${where}.encrypted_content`,
            `${where}: a compaction item written by OpenAI can be read only by OpenAI's models`,
          );
        out.messages.push({ role: 'user', content: [{ type: 'text', text: summary }] });
        return;
      }
      default:
        throw new TranslationError(
          `${where}.type`,
          `${where}: items of type ${String(type)} are served by OpenAI's own tools and cannot be sent to this model`,
        );
    }
  });
  return out;
}
