// A Bedrock Converse / ConverseStream body (what the AWS SDK's ConverseCommand sends; the model is in the
// path) → the hub's request. Converse is shaped after Anthropic's Messages: turns of content blocks, tool
// uses and results as blocks, a `cachePoint` block marking the part before it. A user turn's toolResult
// blocks become a tool message, its other blocks a user message, in their order. `additionalModelRequestFields`
// carries what Converse has no field for: `top_k` and Anthropic's `thinking` are read, any other field is
// refused by name, as are the Converse features no hub form holds (guardrails, prompt variables).
import { isObject } from '../../core/json.ts';
import type {
  AssistantPart,
  CacheMarker,
  FilePart,
  HubMessage,
  HubRequest,
  HubTool,
  HubToolChoice,
  TextPart,
  ToolResultPart,
  UserPart,
} from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';

type Json = Record<string, unknown>;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

const DOCUMENT_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  txt: 'text/plain',
  md: 'text/markdown',
  html: 'text/html',
};

/** Top-level fields read here; any other is refused by name. */
const KNOWN = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'requestMetadata',
]);

const CACHE: CacheMarker = { type: 'ephemeral' };

function fail(where: string, message: string): never {
  throw new TranslationError(where, message);
}

function text(v: unknown, where: string): string {
  if (typeof v !== 'string') fail(where, `${where} must be a string.`);
  return v;
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(where, `${where} must be a list.`);
  return v;
}

function isCachePoint(b: unknown): boolean {
  return isObject(b) && b.cachePoint !== undefined;
}

/** An image or document block as a file part (bytes arrive base64 in JSON, as the SDK writes them). */
function filePart(b: Json, where: string): FilePart | TextPart {
  if (isObject(b.image)) {
    const mediaType = IMAGE_TYPES[b.image.format as string];
    if (mediaType === undefined)
      fail(`${where}.image.format`, `image format ${JSON.stringify(b.image.format)} is not supported.`);
    const source = isObject(b.image.source) ? b.image.source : {};
    if (typeof source.bytes !== 'string')
      fail(`${where}.image.source`, 'images are taken as inline bytes only (not from S3) on this gateway.');
    return { type: 'file', mediaType, data: { base64: source.bytes } };
  }
  const d = b.document as Json;
  const source = isObject(d.source) ? d.source : {};
  const name = typeof d.name === 'string' ? d.name : undefined;
  if (typeof source.text === 'string')
    return { type: 'file', mediaType: 'text/plain', data: { text: source.text }, filename: name };
  const mediaType = DOCUMENT_TYPES[d.format as string];
  if (mediaType === undefined)
    fail(`${where}.document.format`, `document format ${JSON.stringify(d.format)} is not supported.`);
  if (typeof source.bytes !== 'string')
    fail(`${where}.document.source`, 'documents are taken as inline bytes or text only (not from S3) on this gateway.');
  // A text format's bytes are its text: every model takes text, not every one a text file's bytes.
  if (mediaType !== 'application/pdf')
    return {
      type: 'file',
      mediaType,
      data: { text: Buffer.from(source.bytes, 'base64').toString('utf8') },
      filename: name,
    };
  return { type: 'file', mediaType, data: { base64: source.bytes }, filename: name };
}

/** A cachePoint marks the part before it (reasoning carries no marker: a point after it is dropped). */
function markLast(parts: ReadonlyArray<object>): void {
  const last = parts[parts.length - 1] as { type?: string; cache?: CacheMarker } | undefined;
  if (last !== undefined && last.type !== 'reasoning') last.cache = CACHE;
}

function toolResult(r: Json, where: string): ToolResultPart {
  const content: Array<TextPart | FilePart> = [];
  const blocks = r.content === undefined ? [] : list(r.content, `${where}.content`);
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    const at = `${where}.content[${i}]`;
    if (!isObject(b)) fail(at, `${at} must be an object.`);
    if (typeof b.text === 'string') content.push({ type: 'text', text: b.text });
    else if (b.json !== undefined) content.push({ type: 'text', text: JSON.stringify(b.json) });
    else if (isObject(b.image) || isObject(b.document)) content.push(filePart(b, at));
    else fail(at, `${at}: a tool result block must hold text, json, an image or a document.`);
  }
  const part: ToolResultPart = { type: 'tool-result', callId: text(r.toolUseId, `${where}.toolUseId`), content };
  if (r.status === 'error') part.isError = true;
  return part;
}

function userMessages(content: unknown[], where: string, out: HubMessage[]): void {
  let user: UserPart[] = [];
  let tools: ToolResultPart[] = [];
  let last: object[] = user;
  const flush = () => {
    if (tools.length > 0) out.push({ role: 'tool', content: tools });
    if (user.length > 0) out.push({ role: 'user', content: user });
    tools = [];
    user = [];
  };
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    const at = `${where}.content[${i}]`;
    if (!isObject(b)) fail(at, `${at} must be an object.`);
    if (isCachePoint(b)) markLast(last);
    else if (isObject(b.toolResult)) {
      if (user.length > 0) flush();
      tools.push(toolResult(b.toolResult, `${at}.toolResult`));
      last = tools;
    } else {
      if (tools.length > 0) flush();
      if (typeof b.text === 'string') user.push({ type: 'text', text: b.text });
      else if (isObject(b.image) || isObject(b.document)) user.push(filePart(b, at));
      else fail(at, `${at}: a user turn's block must be text, image, document, toolResult or cachePoint.`);
      last = user;
    }
  }
  flush();
}

function assistantMessage(content: unknown[], where: string): HubMessage {
  const parts: AssistantPart[] = [];
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    const at = `${where}.content[${i}]`;
    if (!isObject(b)) fail(at, `${at} must be an object.`);
    if (isCachePoint(b)) markLast(parts);
    else if (typeof b.text === 'string') parts.push({ type: 'text', text: b.text });
    else if (isObject(b.toolUse))
      parts.push({
        type: 'tool-call',
        id: text(b.toolUse.toolUseId, `${at}.toolUse.toolUseId`),
        name: text(b.toolUse.name, `${at}.toolUse.name`),
        input: JSON.stringify(b.toolUse.input ?? {}),
      });
    else if (isObject(b.reasoningContent)) {
      const r = b.reasoningContent;
      if (isObject(r.reasoningText)) {
        const part: AssistantPart = { type: 'reasoning', text: String(r.reasoningText.text ?? ''), origin: 'messages' };
        if (typeof r.reasoningText.signature === 'string') part.signature = r.reasoningText.signature;
        parts.push(part);
      } else if (typeof r.redactedContent === 'string')
        parts.push({ type: 'reasoning', text: '', redacted: r.redactedContent, origin: 'messages' });
    } else if (isObject(b.image) || isObject(b.document)) parts.push(filePart(b, at));
    else fail(at, `${at}: an assistant turn's block must be text, toolUse, reasoningContent or cachePoint.`);
  }
  return { role: 'assistant', content: parts };
}

function tools(config: Json, req: HubRequest): void {
  const specs = config.tools === undefined ? [] : list(config.tools, 'toolConfig.tools');
  const out: HubTool[] = [];
  for (let i = 0; i < specs.length; i++) {
    const t = specs[i];
    const at = `toolConfig.tools[${i}]`;
    if (isCachePoint(t)) {
      markLast(out);
      continue;
    }
    if (!isObject(t) || !isObject(t.toolSpec)) fail(at, `${at} must hold a toolSpec.`);
    const spec = t.toolSpec;
    const schema = isObject(spec.inputSchema) && isObject(spec.inputSchema.json) ? spec.inputSchema.json : undefined;
    const tool: HubTool = { name: text(spec.name, `${at}.toolSpec.name`), kind: 'function' };
    if (schema !== undefined) tool.inputSchema = schema;
    if (typeof spec.description === 'string') tool.description = spec.description;
    out.push(tool);
  }
  req.tools = out;
  const c = config.toolChoice;
  if (c === undefined) return;
  let choice: HubToolChoice | undefined;
  if (isObject(c)) {
    if (c.auto !== undefined) choice = { type: 'auto' };
    else if (c.any !== undefined) choice = { type: 'required' };
    else if (isObject(c.tool)) choice = { type: 'tool', name: text(c.tool.name, 'toolConfig.toolChoice.tool.name') };
  }
  if (choice === undefined) fail('toolConfig.toolChoice', 'toolChoice must be one of auto, any or tool.');
  req.toolChoice = choice;
}

function additional(fields: Json, req: HubRequest): void {
  for (const key of Object.keys(fields)) {
    const v = fields[key];
    const at = `additionalModelRequestFields.${key}`;
    if (key === 'top_k' && typeof v === 'number') req.topK = v;
    else if (key === 'thinking' && isObject(v)) {
      if (v.type === 'enabled' && typeof v.budget_tokens === 'number')
        req.reasoning = { budgetTokens: v.budget_tokens };
      else if (v.type === 'adaptive') req.reasoning = { adaptive: true };
      else if (v.type !== 'disabled')
        fail(at, `${at}: type must be enabled (with budget_tokens), adaptive or disabled.`);
    } else fail(at, `${at} is not supported by this gateway (it reads top_k and thinking).`);
  }
}

export function decodeConverseRequest(body: Json, call?: { stream: boolean }): HubRequest {
  for (const key of Object.keys(body))
    if (!KNOWN.has(key)) fail(key, `${key} is not supported by this gateway's Converse route.`);
  const req: HubRequest = {
    system: [],
    messages: [],
    tools: [],
    stream: call?.stream === true,
    extra: {},
    from: 'messages',
  };
  const system = body.system === undefined ? [] : list(body.system, 'system');
  for (let i = 0; i < system.length; i++) {
    const b = system[i];
    if (isCachePoint(b)) markLast(req.system);
    else if (isObject(b) && typeof b.text === 'string') req.system.push({ type: 'text', text: b.text });
    else fail(`system[${i}]`, `system[${i}] must be a text or cachePoint block.`);
  }
  const messages = list(body.messages, 'messages');
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const at = `messages[${i}]`;
    if (!isObject(m)) fail(at, `${at} must be an object.`);
    const content = list(m.content, `${at}.content`);
    if (m.role === 'user') userMessages(content, at, req.messages);
    else if (m.role === 'assistant') req.messages.push(assistantMessage(content, at));
    else fail(`${at}.role`, `${at}.role must be user or assistant.`);
  }
  if (body.inferenceConfig !== undefined) {
    if (!isObject(body.inferenceConfig)) fail('inferenceConfig', 'inferenceConfig must be an object.');
    const c = body.inferenceConfig;
    for (const key of Object.keys(c)) {
      const v = c[key];
      const at = `inferenceConfig.${key}`;
      if (key === 'maxTokens' && typeof v === 'number') req.maxOutputTokens = v;
      else if (key === 'temperature' && typeof v === 'number') req.temperature = v;
      else if (key === 'topP' && typeof v === 'number') req.topP = v;
      else if (key === 'stopSequences' && Array.isArray(v) && v.every((s) => typeof s === 'string'))
        req.stopSequences = v as string[];
      else fail(at, `${at} is not a valid inference setting.`);
    }
  }
  if (body.toolConfig !== undefined) {
    if (!isObject(body.toolConfig)) fail('toolConfig', 'toolConfig must be an object.');
    tools(body.toolConfig, req);
  }
  if (body.additionalModelRequestFields !== undefined) {
    if (!isObject(body.additionalModelRequestFields))
      fail('additionalModelRequestFields', 'additionalModelRequestFields must be an object.');
    additional(body.additionalModelRequestFields, req);
  }
  // Bedrock's invocation-log tags: no upstream behind the gateway reads them, so the encoder names them.
  if (body.requestMetadata !== undefined) req.extra.requestMetadata = body.requestMetadata;
  return req;
}
