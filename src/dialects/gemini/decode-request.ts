// A Gemini generateContent body (already validated) → the hub's request. `contents` turns of role
// `model` are the assistant's, `user` turns the caller's; functionResponse parts become tool results,
// each matched to its call by `id` where the caller kept one, else by name in call order (Gemini's own
// rule), and calls without ids get stable ones so other dialects can pair them. The model and whether
// to stream come from the path (`call`).
import { isObject } from '../../core/json.ts';
import type {
  AssistantPart,
  FilePart,
  HubMessage,
  HubReasoning,
  HubRequest,
  HubResponseFormat,
  HubTool,
  HubToolChoice,
  TextPart,
  ToolResultPart,
  UserPart,
} from '../../spec/form.ts';
import { uncarry } from '../../spec/reasoning-carrier.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { jsonSchemaOf } from './schema.ts';

/** generationConfig fields with no hub equivalent: carried by name for the encoders to name as dropped. */
const EXTRA_CONFIG = [
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseLogprobs',
  'logprobs',
  'responseModalities',
  'mediaResolution',
  'speechConfig',
] as const;
const EXTRA_FIELDS = ['safetySettings', 'cachedContent', 'labels'] as const;

type Json = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Tool-call ids through one conversation: the caller's where given, else `call_gemini_{n}`. */
class CallIds {
  #n = 0;
  /** Calls not yet answered, by function name, oldest first. */
  readonly #open = new Map<string, string[]>();

  call(name: string, id: string | undefined): string {
    const callId = id ?? `call_gemini_${this.#n++}`;
    const list = this.#open.get(name) ?? [];
    list.push(callId);
    this.#open.set(name, list);
    return callId;
  }

  response(name: string, id: string | undefined): string {
    const list = this.#open.get(name);
    if (id !== undefined) {
      const at = list?.indexOf(id) ?? -1;
      if (at !== -1) list!.splice(at, 1);
      return id;
    }
    return list?.shift() ?? `call_gemini_${this.#n++}`;
  }
}

function filePart(p: Json, param: string): FilePart {
  if (isObject(p.inlineData)) {
    const mediaType = str(p.inlineData.mimeType);
    const data = str(p.inlineData.data);
    if (mediaType === undefined || data === undefined)
      throw new TranslationError(`${param}.inlineData`, 'inlineData needs mimeType and data');
    return { type: 'file', mediaType, data: { base64: data } };
  }
  const fd = p.fileData as Json;
  const uri = str(fd.fileUri);
  if (uri === undefined) throw new TranslationError(`${param}.fileData.fileUri`, 'fileData needs a fileUri');
  return { type: 'file', mediaType: str(fd.mimeType) ?? 'application/octet-stream', data: { url: uri } };
}

function resultContent(response: unknown): TextPart[] {
  // Gemini's response is an object; `output` (or `content`) holding text is what clients put there.
  if (isObject(response)) {
    const keys = Object.keys(response);
    const only = keys.length === 1 ? response[keys[0]] : undefined;
    if ((keys[0] === 'output' || keys[0] === 'content' || keys[0] === 'result') && typeof only === 'string')
      return [{ type: 'text', text: only }];
  }
  return [{ type: 'text', text: JSON.stringify(response ?? {}) }];
}

function decodeTurn(content: Json, i: number, ids: CallIds, out: HubMessage[]): void {
  const parts = (content.parts as unknown[]).filter(isObject);
  const param = `contents[${i}]`;
  if (content.role === 'model') {
    const assistant: AssistantPart[] = [];
    parts.forEach((p, j) => {
      const signature = str(p.thoughtSignature);
      if (isObject(p.functionCall)) {
        const name = str(p.functionCall.name) ?? '';
        const call: AssistantPart = {
          type: 'tool-call',
          id: ids.call(name, str(p.functionCall.id)),
          name,
          input: JSON.stringify(p.functionCall.args ?? {}),
        };
        if (signature !== undefined) call.signature = signature;
        assistant.push(call);
      } else if (p.thought === true) {
        // Another provider's reasoning comes back in the gateway's token (reasoning-carrier.ts).
        const carried = signature === undefined ? null : uncarry(signature, `${param}.parts[${j}].thoughtSignature`);
        const reasoning: AssistantPart = carried ?? { type: 'reasoning', text: str(p.text) ?? '', origin: 'gemini' };
        if (carried === null && signature !== undefined) reasoning.signature = signature;
        assistant.push(reasoning);
      } else if (typeof p.text === 'string') {
        assistant.push({ type: 'text', text: p.text });
      } else if (p.inlineData !== undefined || p.fileData !== undefined) {
        assistant.push(filePart(p, `${param}.parts[${j}]`));
      } else if (signature === undefined) {
        throw new TranslationError(
          `${param}.parts[${j}]`,
          `this part (${Object.keys(p).join(', ')}) cannot be sent to this model`,
        );
      }
    });
    out.push({ role: 'assistant', content: assistant });
    return;
  }
  // A user turn: function responses become tool messages, the rest user content, in order.
  let user: UserPart[] | null = null;
  let tool: ToolResultPart[] | null = null;
  parts.forEach((p, j) => {
    if (isObject(p.functionResponse)) {
      user = null;
      const name = str(p.functionResponse.name) ?? '';
      const result: ToolResultPart = {
        type: 'tool-result',
        callId: ids.response(name, str(p.functionResponse.id)),
        name,
        content: resultContent(p.functionResponse.response),
      };
      const response = p.functionResponse.response;
      if (isObject(response) && response.error !== undefined && Object.keys(response).length === 1)
        result.isError = true;
      if (tool === null) out.push({ role: 'tool', content: (tool = []) });
      tool.push(result);
      return;
    }
    tool = null;
    let part: UserPart;
    if (typeof p.text === 'string') part = { type: 'text', text: p.text };
    else if (p.inlineData !== undefined || p.fileData !== undefined) part = filePart(p, `${param}.parts[${j}]`);
    else
      throw new TranslationError(
        `${param}.parts[${j}]`,
        `this part (${Object.keys(p).join(', ')}) cannot be sent to this model`,
      );
    if (user === null) out.push({ role: 'user', content: (user = []) });
    user.push(part);
  });
}

function systemOf(instruction: unknown): TextPart[] {
  if (!isObject(instruction) || !Array.isArray(instruction.parts)) return [];
  return instruction.parts.filter(isObject).map((p, j): TextPart => {
    if (typeof p.text !== 'string')
      throw new TranslationError(`systemInstruction.parts[${j}]`, 'systemInstruction may hold text parts only');
    return { type: 'text', text: p.text };
  });
}

function toolsOf(tools: unknown): HubTool[] {
  if (!Array.isArray(tools)) return [];
  const out: HubTool[] = [];
  tools.forEach((t: unknown, i) => {
    if (!isObject(t)) return;
    for (const key of Object.keys(t)) {
      if (key !== 'functionDeclarations')
        throw new TranslationError(`tools[${i}].${key}`, `Gemini's built-in ${key} tool runs only on Gemini models`);
    }
    const decls = Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [];
    decls.forEach((d: unknown, j) => {
      if (!isObject(d) || str(d.name) === undefined)
        throw new TranslationError(
          `tools[${i}].functionDeclarations[${j}].name`,
          'a function declaration needs a name',
        );
      const tool: HubTool = { name: d.name as string, kind: 'function' };
      const description = str(d.description);
      if (description !== undefined) tool.description = description;
      if (isObject(d.parametersJsonSchema)) tool.inputSchema = d.parametersJsonSchema;
      else if (isObject(d.parameters)) tool.inputSchema = jsonSchemaOf(d.parameters);
      else tool.inputSchema = { type: 'object', properties: {} };
      out.push(tool);
    });
  });
  return out;
}

function toolChoiceOf(toolConfig: unknown): HubToolChoice | undefined {
  const config =
    isObject(toolConfig) && isObject(toolConfig.functionCallingConfig) ? toolConfig.functionCallingConfig : undefined;
  if (config === undefined) return undefined;
  const names = Array.isArray(config.allowedFunctionNames)
    ? config.allowedFunctionNames.filter((n): n is string => typeof n === 'string')
    : [];
  switch (config.mode) {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      return names.length === 1 ? { type: 'tool', name: names[0] } : { type: 'required' };
    case 'AUTO':
    case 'VALIDATED':
    case undefined:
      return { type: 'auto' };
    default:
      throw new TranslationError(
        'toolConfig.functionCallingConfig.mode',
        `mode ${String(config.mode)} is not supported`,
      );
  }
}

function reasoningOf(thinking: unknown): HubReasoning | undefined {
  if (!isObject(thinking)) return undefined;
  const out: HubReasoning = {};
  const budget = num(thinking.thinkingBudget);
  // -1 is Gemini's "dynamic": the model decides, as with no budget at all.
  if (budget !== undefined && budget >= 0) {
    if (budget === 0) out.effort = 'none';
    else out.budgetTokens = budget;
  }
  const level = str(thinking.thinkingLevel)?.toLowerCase();
  if (level === 'minimal' || level === 'low' || level === 'medium' || level === 'high') out.effort = level;
  if (thinking.includeThoughts === true) out.summary = 'auto';
  return Object.keys(out).length > 0 ? out : undefined;
}

function responseFormatOf(config: Json): HubResponseFormat | undefined {
  if (config.responseMimeType !== 'application/json') return undefined;
  const out: HubResponseFormat = { type: 'json' };
  if (isObject(config.responseJsonSchema)) out.schema = config.responseJsonSchema;
  else if (isObject(config.responseSchema)) out.schema = jsonSchemaOf(config.responseSchema);
  if (out.schema !== undefined) out.name = 'response';
  return out;
}

export function decodeGeminiRequest(body: Record<string, unknown>, call: { stream?: boolean } = {}): HubRequest {
  if (!Array.isArray(body.contents)) throw new TranslationError('contents', 'contents must be an array');
  const ids = new CallIds();
  const messages: HubMessage[] = [];
  body.contents.forEach((c: unknown, i) => {
    if (isObject(c) && Array.isArray(c.parts)) decodeTurn(c, i, ids, messages);
  });
  const req: HubRequest = {
    system: systemOf(body.systemInstruction),
    messages,
    tools: toolsOf(body.tools),
    stream: call.stream === true,
    extra: {},
    from: 'gemini',
  };
  const choice = toolChoiceOf(body.toolConfig);
  if (choice !== undefined && req.tools.length > 0) req.toolChoice = choice;
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const candidates = num(config.candidateCount);
  if (candidates !== undefined && candidates !== 1)
    throw new TranslationError('generationConfig.candidateCount', 'only one candidate is supported for this model');
  const max = num(config.maxOutputTokens);
  if (max !== undefined) req.maxOutputTokens = max;
  const temperature = num(config.temperature);
  if (temperature !== undefined) req.temperature = temperature;
  const topP = num(config.topP);
  if (topP !== undefined) req.topP = topP;
  const topK = num(config.topK);
  if (topK !== undefined) req.topK = topK;
  if (Array.isArray(config.stopSequences)) {
    const stops = config.stopSequences.filter((s): s is string => typeof s === 'string' && s.length > 0);
    if (stops.length > 0) req.stopSequences = stops;
  }
  const format = responseFormatOf(config);
  if (format !== undefined) req.responseFormat = format;
  const reasoning = reasoningOf(config.thinkingConfig);
  if (reasoning !== undefined) req.reasoning = reasoning;
  for (const field of EXTRA_CONFIG) if (config[field] !== undefined) req.extra[field] = config[field];
  for (const field of EXTRA_FIELDS) if (body[field] !== undefined) req.extra[field] = body[field];
  return req;
}
