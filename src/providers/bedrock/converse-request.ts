// The hub's request → a Bedrock Converse / ConverseStream body (the model is in the path, not the body).
// Converse wants user and assistant in turn, so adjacent turns of one role are merged and tool results
// go as user turns of toolResult blocks; a system message inside the conversation joins the top-level
// `system` (named in adjustments). Cache markers become cachePoint blocks after the part they mark.
// What Converse has no field for goes in additionalModelRequestFields (top_k, Anthropic thinking), and
// what no Bedrock model can take is named in adjustments; a URL or file-id image is refused (Converse
// takes bytes or an S3 location only), since dropping it would change the question.
import type { EncodedRequest, UpstreamOptions } from '../../spec/codec.ts';
import type { AssistantPart, FilePart, HubRequest, ToolResultPart, UserPart } from '../../spec/form.ts';
import { refusedParam } from '../../spec/refused-params.ts';
import { TranslationError } from '../../spec/translation-error.ts';

type Json = Record<string, unknown>;

const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
};

const CACHE_POINT: Json = { cachePoint: { type: 'default' } };

function fileBlock(p: FilePart, where: string): Json {
  if ('text' in p.data) return { text: p.data.text };
  if (!('base64' in p.data))
    throw new TranslationError(
      where,
      'Bedrock Converse takes images and documents as inline data only, not by URL or file id.',
    );
  const image = IMAGE_FORMATS[p.mediaType];
  if (image !== undefined) return { image: { format: image, source: { bytes: p.data.base64 } } };
  const doc = DOCUMENT_FORMATS[p.mediaType];
  if (doc !== undefined)
    return {
      document: {
        format: doc,
        name: documentName(p.filename ?? p.title ?? 'document'),
        source: { bytes: p.data.base64 },
      },
    };
  throw new TranslationError(where, `Bedrock Converse does not take files of type ${p.mediaType}.`);
}

/** Converse's document names allow letters, digits, spaces, hyphens, parentheses and brackets. */
function documentName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
      .trim()
      .slice(0, 200) || 'document'
  );
}

function push(blocks: Json[], block: Json, cached: boolean): void {
  blocks.push(block);
  if (cached) blocks.push(CACHE_POINT);
}

function userBlocks(content: UserPart[], where: string): Json[] {
  const blocks: Json[] = [];
  for (let i = 0; i < content.length; i++) {
    const p = content[i];
    push(blocks, p.type === 'text' ? { text: p.text } : fileBlock(p, `${where}.content[${i}]`), p.cache !== undefined);
  }
  return blocks;
}

function toolResultBlock(r: ToolResultPart, where: string): Json {
  const content: Json[] = [];
  for (let i = 0; i < r.content.length; i++) {
    const p = r.content[i];
    content.push(p.type === 'text' ? { text: p.text } : fileBlock(p, `${where}.content[${i}]`));
  }
  if (content.length === 0) content.push({ text: '' });
  const block: Json = { toolUseId: r.callId, content };
  if (r.isError === true) block.status = 'error';
  return { toolResult: block };
}

function assistantBlocks(content: AssistantPart[], where: string, adjustments: Set<string>): Json[] {
  const blocks: Json[] = [];
  for (let i = 0; i < content.length; i++) {
    const p = content[i];
    if (p.type === 'text') {
      if (p.text !== '') push(blocks, { text: p.text }, p.cache !== undefined);
    } else if (p.type === 'file') push(blocks, fileBlock(p, `${where}.content[${i}]`), p.cache !== undefined);
    else if (p.type === 'tool-call') {
      let input: unknown;
      try {
        input = p.kind === 'custom' ? { input: p.input } : JSON.parse(p.input === '' ? '{}' : p.input);
      } catch {
        input = {};
        adjustments.add('tool call arguments that were not JSON sent as {}');
      }
      push(blocks, { toolUse: { toolUseId: p.id, name: p.name, input } }, p.cache !== undefined);
    } else if (p.redacted !== undefined && p.origin === 'messages') {
      blocks.push({ reasoningContent: { redactedContent: p.redacted } });
    } else if (p.signature !== undefined && p.origin === 'messages') {
      // Anthropic's thinking signatures are what Claude on Bedrock verifies; another dialect's are not.
      blocks.push({ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } });
    } else if (p.text !== '') adjustments.add('reasoning from another model left out of the history');
  }
  return blocks;
}

function toolSpec(t: HubRequest['tools'][number]): Json {
  const spec: Json = {
    name: t.name,
    inputSchema: {
      json:
        t.kind === 'custom'
          ? { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] }
          : (t.inputSchema ?? { type: 'object', properties: {} }),
    },
  };
  if (t.description !== undefined) spec.description = t.description;
  return { toolSpec: spec };
}

/** Converse's request body for a hub request. */
export function encodeConverseRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest {
  const adjustments = new Set<string>();
  const system: Json[] = [];
  for (const t of req.system) push(system, { text: t.text }, t.cache !== undefined);
  const messages: Json[] = [];
  const turn = (role: 'user' | 'assistant', blocks: Json[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last !== undefined && last.role === role) (last.content as Json[]).push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (let i = 0; i < req.messages.length; i++) {
    const m = req.messages[i];
    const where = `messages[${i}]`;
    if (m.role === 'system') {
      for (const t of m.content) push(system, { text: t.text }, t.cache !== undefined);
      adjustments.add('system message inside the conversation sent as part of the system prompt');
    } else if (m.role === 'user') turn('user', userBlocks(m.content, where));
    else if (m.role === 'assistant') turn('assistant', assistantBlocks(m.content, where, adjustments));
    else
      turn(
        'user',
        m.content.map((r, j) => toolResultBlock(r, `${where}.content[${j}]`)),
      );
  }

  const body: Json = { messages };
  if (system.length > 0) body.system = system;

  const inference: Json = {};
  const max = req.maxOutputTokens ?? opts.defaultMaxTokens;
  if (!refusedParam(opts, 'max_tokens', [])) inference.maxTokens = max;
  if (req.temperature !== undefined && !refusedParam(opts, 'temperature', [])) inference.temperature = req.temperature;
  if (req.topP !== undefined && !refusedParam(opts, 'top_p', [])) inference.topP = req.topP;
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) inference.stopSequences = req.stopSequences;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  const additional: Json = {};
  if (req.topK !== undefined) additional.top_k = req.topK;
  if (req.reasoning !== undefined) {
    // Claude on Bedrock reads Anthropic's thinking block from the additional fields.
    if (req.reasoning.budgetTokens !== undefined)
      additional.thinking = { type: 'enabled', budget_tokens: req.reasoning.budgetTokens };
    else if (req.reasoning.adaptive === true) additional.thinking = { type: 'adaptive' };
    else if (req.reasoning.effort !== undefined && req.reasoning.effort !== 'none')
      adjustments.add('reasoning effort left out: Converse has no field for it');
  }
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;

  if (req.tools.length > 0 && req.toolChoice?.type !== 'none') {
    const toolConfig: Json = { tools: req.tools.map(toolSpec) };
    if (req.tools.some((t) => t.cache !== undefined)) (toolConfig.tools as Json[]).push(CACHE_POINT);
    const c = req.toolChoice;
    if (c?.type === 'required') toolConfig.toolChoice = { any: {} };
    else if (c?.type === 'tool') toolConfig.toolChoice = { tool: { name: c.name } };
    else if (c?.type === 'auto') toolConfig.toolChoice = { auto: {} };
    body.toolConfig = toolConfig;
  } else if (req.tools.length > 0) adjustments.add('tools left out: tool_choice none');
  if (req.parallelToolCalls === false) adjustments.add('parallel_tool_calls left out: Converse has no switch for it');
  if (req.responseFormat !== undefined && req.responseFormat.type === 'json')
    adjustments.add('response_format left out: Converse has no JSON mode');
  if (req.metadata !== undefined && Object.keys(req.metadata).length > 0) body.requestMetadata = req.metadata;
  for (const name of Object.keys(req.extra)) adjustments.add(`${name} left out: Converse has no field for it`);

  return { body: JSON.stringify(body), adjustments: [...adjustments], replyState: null };
}
