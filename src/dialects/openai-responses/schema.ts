// The POST /v1/responses body as the gateway checks it: what it relies on (model, stream, store, the
// conversation it continues) and shapes every upstream refuses anyway; unknown fields pass untouched on
// the native route. Errors name the parameter OpenAI's way.
import { z } from 'zod';
import { numberBetween, positiveInteger } from '../openai-chat/schema.ts';
import { addFirstIssue } from '../request-schema.ts';

const ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'item_reference',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'compaction',
] as const;
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'system', 'developer']);

type Ctx = z.RefinementCtx;
const issue = (ctx: Ctx, path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One input item: its type (a message when it names none) and the fields that type cannot do without. */
export const inputItemSchema = z
  .looseObject(
    {
      type: z
        .enum(ITEM_TYPES, { error: (iss) => `{param} \`${String(iss.input)}\` is not an input item type.` })
        .optional(),
    },
    { error: '{param} must be an object.' },
  )
  .superRefine((item, ctx) => {
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (!ROLES.has(item.role)) issue(ctx, ['role'], '{param} must be one of user, assistant, system, developer.');
      else if (typeof item.content !== 'string' && !Array.isArray(item.content))
        issue(ctx, ['content'], '{param} must be a string or an array of content parts.');
      else if (Array.isArray(item.content))
        item.content.forEach((p: unknown, j) => {
          if (!isObject(p) || typeof p.type !== 'string')
            issue(ctx, ['content', j], '{param} must be an object with a `type`.');
        });
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      if (typeof item.call_id !== 'string') issue(ctx, ['call_id'], '{param} is required.');
      else if (typeof item.name !== 'string') issue(ctx, ['name'], '{param} is required.');
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      if (typeof item.call_id !== 'string') issue(ctx, ['call_id'], '{param} is required.');
      else if (typeof item.output !== 'string' && !Array.isArray(item.output))
        issue(ctx, ['output'], '{param} must be a string or an array of content parts.');
    }
  });

const tool = z
  .looseObject({ type: z.string() }, { error: '{param} must be an object with a `type`.' })
  .superRefine((t, ctx) => {
    if ((t.type === 'function' || t.type === 'custom') && (typeof t.name !== 'string' || t.name === ''))
      issue(ctx, ['name'], '{param} is required.');
  });

const withType = '`{param}` must be an object with a `type`.';
const format = z
  .looseObject({}, { error: withType })
  .refine((f) => typeof f.type === 'string', { error: withType })
  .superRefine((f, ctx) => {
    if (f.type === 'json_schema' && !isObject(f.schema))
      issue(ctx, ['schema'], '`{param}` is required for json_schema.');
  });

const required = '`{param}` is required and must be a non-empty string.';
const nonEmpty = '`{param}` must be a non-empty string.';
const boolean = z.boolean({ error: '`{param}` must be a boolean.' }).nullish();
const strings = '`{param}` must be an array of strings.';

export const responsesRequestSchema = z
  .looseObject(
    {
      model: z.string({ error: required }).min(1, { error: required }),
      previous_response_id: z.string({ error: nonEmpty }).min(1, { error: nonEmpty }).nullish(),
      // Its items are checked below, one at a time: an item's own error, not a union's.
      input: z
        .union([z.string(), z.array(z.unknown())], { error: '`{param}` must be a string or an array of input items.' })
        .nullish(),
      instructions: z.string({ error: '`{param}` must be a string.' }).nullish(),
      stream: boolean,
      store: boolean,
      max_output_tokens: positiveInteger('`{param}` must be a positive integer.').nullish(),
      temperature: numberBetween(0, 2).nullish(),
      top_p: numberBetween(0, 1).nullish(),
      parallel_tool_calls: boolean,
      tools: z.array(tool, { error: '`{param}` must be an array.' }).nullish(),
      tool_choice: z
        .union([z.string(), z.looseObject({})], { error: '`{param}` must be a string or an object.' })
        .nullish(),
      text: z.looseObject({ format: format.optional() }, { error: '`{param}` must be an object.' }).nullish(),
      reasoning: z.looseObject({}, { error: '`{param}` must be an object.' }).nullish(),
      metadata: z
        .record(z.string(), z.string({ error: '{param} must be a string.' }), {
          error: '`{param}` must be an object of strings.',
        })
        .nullish(),
      include: z
        .array(z.unknown(), { error: strings })
        .refine((v) => v.every((s) => typeof s === 'string'), { error: strings })
        .nullish(),
    },
    { error: 'The request body must be a JSON object.' },
  )
  .superRefine((b, ctx) => {
    if ((b.input === undefined || b.input === null) && typeof b.previous_response_id !== 'string')
      issue(ctx, ['input'], '`{param}` is required: a string or an array of input items.');
    if (Array.isArray(b.input))
      for (let i = 0; i < b.input.length; i++)
        if (addFirstIssue(inputItemSchema, b.input[i], ctx, ['input', i])) return;
  });
