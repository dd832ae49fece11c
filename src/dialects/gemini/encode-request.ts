// The hub's request → a Gemini generateContent body for a Gemini upstream. Adjacent turns of one role
// are merged (Gemini wants user and model in turn); tool results are user turns of functionResponse
// parts named after their calls; a system message inside the conversation becomes a user turn that says
// so. Function calls keep their thought signature; a call made elsewhere carries Gemini's documented
// placeholder, so Gemini 3 models accept a history they did not write.
import type { EncodedRequest, UpstreamOptions } from '../../spec/codec.ts';
import type { AssistantPart, FilePart, HubRequest, TextPart, UserPart } from '../../spec/form.ts';
import { argsOfInput } from './encode-reply.ts';

type Json = Record<string, unknown>;

/** Google's documented stand-in for a function call's thought signature that no Gemini model wrote. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Output tokens Gemini may think for each reasoning effort (thinkingBudget works on 2.5 and 3 models). */
const EFFORT_BUDGET: Readonly<Record<string, number>> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 32768,
};

function filePartOf(p: FilePart): Json {
  if ('base64' in p.data) return { inlineData: { mimeType: p.mediaType, data: p.data.base64 } };
  if ('url' in p.data) return { fileData: { mimeType: p.mediaType, fileUri: p.data.url } };
  if ('fileId' in p.data) return { fileData: { mimeType: p.mediaType, fileUri: p.data.fileId } };
  return { text: p.data.text };
}

function userParts(content: UserPart[] | TextPart[]): Json[] {
  return content.map((p) => (p.type === 'text' ? { text: p.text } : filePartOf(p)));
}

function modelParts(content: AssistantPart[], opts: UpstreamOptions, adjustments: Set<string>): Json[] {
  const parts: Json[] = [];
  let signed = false;
  for (const p of content) {
    if (p.type === 'text') parts.push({ text: p.text });
    else if (p.type === 'file') parts.push(filePartOf(p));
    else if (p.type === 'reasoning') {
      // Only Gemini can read its own thoughts back; another dialect's reasoning is not sent.
      if (p.origin !== 'gemini') {
        if (p.text !== '' || p.signature !== undefined)
          adjustments.add('reasoning from another model left out of the history');
        continue;
      }
      const part: Json = { text: p.text, thought: true };
      if (p.signature !== undefined) part.thoughtSignature = p.signature;
      parts.push(part);
    } else {
      const part: Json = { functionCall: { name: p.name, args: argsOfInput(p.input) } };
      // The first call of a turn carries the signature (Gemini's rule for parallel calls). A caller whose
      // dialect has no place for it sends the call back without: the one this model made it with, if the
      // hub kept it (spec/call-signatures.ts).
      const signature = p.signature ?? opts.callSignatures?.get(p.id);
      if (signature !== undefined) part.thoughtSignature = signature;
      else if (!signed) part.thoughtSignature = SKIP_SIGNATURE;
      signed = true;
      parts.push(part);
    }
  }
  return parts;
}

function resultResponse(text: string, isError: boolean | undefined): Json {
  return isError === true ? { error: text } : { output: text };
}

export function encodeGeminiRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest {
  const adjustments = new Set<string>();
  const contents: Json[] = [];
  const callNames = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: Json[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === role) (last.parts as Json[]).push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of req.messages) {
    if (m.role === 'user') push('user', userParts(m.content));
    else if (m.role === 'system') {
      adjustments.add('a system message inside the conversation sent as a user turn');
      push(
        'user',
        m.content.map((p) => ({ text: `System: ${p.text}` })),
      );
    } else if (m.role === 'assistant') {
      for (const p of m.content) if (p.type === 'tool-call') callNames.set(p.id, p.name);
      push('model', modelParts(m.content, opts, adjustments));
    } else {
      push(
        'user',
        m.content.map((r) => {
          const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
          if (r.content.some((c) => c.type === 'file')) adjustments.add('images in tool results left out');
          return {
            functionResponse: {
              name: r.name ?? callNames.get(r.callId) ?? r.callId,
              response: resultResponse(text, r.isError),
            },
          };
        }),
      );
    }
  }
  const body: Json = { contents };
  if (req.system.length > 0) body.systemInstruction = { parts: userParts(req.system) };
  if (req.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: req.tools.map((t) => {
          const d: Json = { name: t.name };
          if (t.description !== undefined) d.description = t.description;
          d.parametersJsonSchema =
            t.kind === 'custom'
              ? { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] }
              : (t.inputSchema ?? { type: 'object', properties: {} });
          return d;
        }),
      },
    ];
    const choice = req.toolChoice;
    if (choice !== undefined) {
      const mode = choice.type === 'auto' ? 'AUTO' : choice.type === 'none' ? 'NONE' : 'ANY';
      const config: Json = { mode };
      if (choice.type === 'tool') config.allowedFunctionNames = [choice.name];
      body.toolConfig = { functionCallingConfig: config };
    }
  }
  const config: Json = {};
  const refused = (field: string): boolean => {
    if (!opts.refusedParams.includes(field)) return false;
    adjustments.add(`${field} left out: the deployment's model refuses it`);
    return true;
  };
  if (req.maxOutputTokens !== undefined) config.maxOutputTokens = req.maxOutputTokens;
  if (req.temperature !== undefined && !refused('temperature')) config.temperature = req.temperature;
  if (req.topP !== undefined && !refused('topP')) config.topP = req.topP;
  if (req.topK !== undefined && !refused('topK')) config.topK = req.topK;
  if (req.stopSequences !== undefined) config.stopSequences = req.stopSequences.slice(0, 5);
  if (req.responseFormat?.type === 'json') {
    config.responseMimeType = 'application/json';
    if (req.responseFormat.schema !== undefined) config.responseJsonSchema = req.responseFormat.schema;
  }
  const reasoning = req.reasoning;
  if (reasoning !== undefined) {
    const thinking: Json = {};
    if (reasoning.budgetTokens !== undefined) thinking.thinkingBudget = reasoning.budgetTokens;
    else if (reasoning.effort !== undefined) thinking.thinkingBudget = EFFORT_BUDGET[reasoning.effort];
    if (reasoning.summary !== undefined) thinking.includeThoughts = true;
    if (Object.keys(thinking).length > 0) config.thinkingConfig = thinking;
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  for (const field of Object.keys(req.extra)) {
    if (req.from === 'gemini') continue;
    adjustments.add(`${field} left out: Gemini has no equivalent`);
  }
  if (req.from === 'gemini') {
    // Fields only Gemini has, carried back to a Gemini upstream as they came.
    for (const [field, value] of Object.entries(req.extra)) {
      if (field === 'safetySettings' || field === 'cachedContent' || field === 'labels') body[field] = value;
      else config[field] = value;
    }
    if (Object.keys(config).length > 0) body.generationConfig = config;
  }
  return { body: JSON.stringify(body), adjustments: [...adjustments], replyState: null };
}
