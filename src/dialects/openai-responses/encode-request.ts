// The hub's request → a Responses API body for an upstream that serves /v1/responses (`apis:
// [responses]`), reached from another dialect. The gateway keeps conversations itself, so the upstream
// is asked to store nothing; reasoning it may encrypt comes back in the reply for the next turn.
import type { JsonObject } from '../../core/json.ts';
import type { EncodedRequest, UpstreamOptions } from '../../spec/codec.ts';
import type { FilePart, HubMessage, HubRequest, TextPart, UserPart } from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';

function refused(opts: UpstreamOptions, name: string, adjustments: string[]): boolean {
  if (!opts.refusedParams.includes(name)) return false;
  adjustments.push(`${name} left out: the deployment's model refuses it`);
  return true;
}

function filePart(part: FilePart): JsonObject {
  const d = part.data;
  if ('text' in d) return { type: 'input_text', text: d.text };
  if (part.mediaType.startsWith('image/')) {
    const detail = part.detail ?? 'auto';
    if ('base64' in d) return { type: 'input_image', image_url: `data:${part.mediaType};base64,${d.base64}`, detail };
    if ('url' in d) return { type: 'input_image', image_url: d.url, detail };
    return { type: 'input_image', file_id: d.fileId, detail };
  }
  const name = part.filename ?? part.title;
  const file: JsonObject =
    'base64' in d
      ? { type: 'input_file', file_data: `data:${part.mediaType};base64,${d.base64}` }
      : 'url' in d
        ? { type: 'input_file', file_url: d.url }
        : { type: 'input_file', file_id: d.fileId };
  if (name !== undefined) file.filename = name;
  return file;
}

function userContent(parts: readonly UserPart[]): JsonObject[] {
  return parts.map((p) => (p.type === 'text' ? { type: 'input_text', text: p.text } : filePart(p)));
}

function textOf(parts: readonly TextPart[]): string {
  return parts.map((p) => p.text).join('\n\n');
}

function inputOf(messages: readonly HubMessage[], adjustments: string[]): JsonObject[] {
  const out: JsonObject[] = [];
  const custom = new Set<string>();
  let droppedReasoning = false;
  for (const m of messages) {
    if (m.role === 'system') out.push({ type: 'message', role: 'developer', content: textOf(m.content) });
    else if (m.role === 'user') out.push({ type: 'message', role: 'user', content: userContent(m.content) });
    else if (m.role === 'tool') {
      for (const r of m.content) {
        const onlyText = r.content.every((p) => p.type === 'text');
        const output = onlyText ? r.content.map((p) => (p as TextPart).text).join('\n') : userContent(r.content);
        out.push({
          type: custom.has(r.callId) ? 'custom_tool_call_output' : 'function_call_output',
          call_id: r.callId,
          output,
        });
      }
    } else {
      for (const p of m.content) {
        if (p.type === 'text')
          out.push({
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text: p.text, annotations: [] }],
          });
        else if (p.type === 'tool-call') {
          if (p.kind === 'custom') {
            custom.add(p.id);
            out.push({ type: 'custom_tool_call', call_id: p.id, name: p.name, input: p.input });
          } else out.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.input });
        } else if (p.type === 'reasoning') {
          // Only OpenAI can read its own encrypted reasoning; another model's signed thinking means nothing here.
          if (p.origin === 'responses' && p.encrypted !== undefined && p.id !== undefined) {
            out.push({
              type: 'reasoning',
              id: p.id,
              summary: p.text === '' ? [] : [{ type: 'summary_text', text: p.text }],
              encrypted_content: p.encrypted,
            });
          } else droppedReasoning = true;
        } else throw new TranslationError('messages', 'files in an assistant turn cannot be sent to this model');
      }
    }
  }
  if (droppedReasoning) adjustments.push("reasoning of another model's making left out of the history");
  return out;
}

export function encodeResponsesRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest {
  const adjustments: string[] = [];
  const out: JsonObject = { model: opts.upstreamModel, input: inputOf(req.messages, adjustments), store: false };
  const system = textOf(req.system);
  if (system !== '') out.instructions = system;
  if (req.maxOutputTokens !== undefined) out.max_output_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined && !refused(opts, 'temperature', adjustments)) out.temperature = req.temperature;
  if (req.topP !== undefined && !refused(opts, 'top_p', adjustments)) out.top_p = req.topP;
  if (req.stopSequences !== undefined && req.stopSequences.length > 0)
    adjustments.push('stop sequences left out: the Responses API has none');
  if (req.topK !== undefined) adjustments.push('top_k left out');
  if (req.stream) out.stream = true;
  if (req.tools.length > 0) {
    out.tools = req.tools.map((t) => {
      if (t.kind === 'custom')
        return {
          type: 'custom',
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          ...(t.format === undefined ? {} : { format: t.format }),
        };
      return {
        type: 'function',
        name: t.name,
        description: t.description ?? null,
        parameters: t.inputSchema ?? { type: 'object', properties: {} },
        strict: t.strict ?? false,
      };
    });
    if (req.toolChoice !== undefined)
      out.tool_choice =
        req.toolChoice.type === 'tool' ? { type: 'function', name: req.toolChoice.name } : req.toolChoice.type;
    if (req.parallelToolCalls !== undefined) out.parallel_tool_calls = req.parallelToolCalls;
  }
  const rf = req.responseFormat;
  if (rf?.type === 'json') {
    const format: JsonObject =
      rf.schema === undefined
        ? { type: 'json_object' }
        : { type: 'json_schema', name: rf.name ?? 'output', schema: rf.schema, strict: rf.strict ?? false };
    if (rf.description !== undefined && rf.schema !== undefined) format.description = rf.description;
    out.text = { format };
  }
  const effort = req.reasoning?.effort;
  if (effort !== undefined && !refused(opts, 'reasoning', adjustments)) {
    out.reasoning = {
      effort: effort === 'max' ? 'xhigh' : effort,
      ...(req.reasoning?.summary === undefined ? {} : { summary: req.reasoning.summary }),
    };
    // Stored nowhere upstream: the reasoning comes back encrypted, for the next turn of this conversation.
    if (effort !== 'none') out.include = ['reasoning.encrypted_content'];
  }
  if (req.reasoning?.budgetTokens !== undefined && effort === undefined)
    adjustments.push('thinking budget left out: the Responses API takes an effort, not a budget');
  if (req.user !== undefined) out.user = req.user;
  if (req.metadata !== undefined) out.metadata = req.metadata;
  if (req.cache !== undefined) adjustments.push('cache_control left out: OpenAI caches prompts by itself');
  const cacheKey = opts.promptCacheKey !== undefined && !refused(opts, 'prompt_cache_key', adjustments);
  if (cacheKey) out.prompt_cache_key = opts.promptCacheKey;
  for (const field of Object.keys(req.extra))
    if (!(cacheKey && field === 'prompt_cache_key')) adjustments.push(`${field} left out`);
  return { body: JSON.stringify(out), adjustments, replyState: null };
}
