// Seeded mutation of JSON documents, for tests that feed the gateway requests, replies and events of the
// wrong shape: rich valid documents of each dialect, values that are each wrong somewhere in them, and a
// mutator that swaps one to three values (or deletes keys). The same seed gives the same documents, so a
// failing case fails every run.
import { seededRandom } from './seeded-random.ts';

/** Values that are each the wrong type or the wrong shape somewhere in these documents. */
export const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x',
  'user',
  'assistant',
  'system',
  'tool',
  'text',
  'image_url',
  'image',
  'tool_use',
  'tool_result',
  'function',
  'auto',
  'none',
  'required',
  'any',
  'json_schema',
  'json_object',
  'enabled',
  'adaptive',
  'max',
  [],
  {},
  [null],
  [{}],
  ['x'],
  { type: 5 },
  { type: 'text' },
  { type: 'text', text: 5 },
  { type: 'image_url' },
  { type: 'image_url', image_url: 5 },
  { type: 'image_url', image_url: { url: 5 } },
  { type: 'image', source: null },
  { type: 'tool_use' },
  { type: 'tool_result', content: 5 },
  { type: 'function', function: null },
  { name: 5 },
  '{"a":',
  'data:image/png;base64,AAAA',
  'data:',
  '__proto__',
];

export const CHAT_REQUEST_SEED = {
  model: 'm',
  max_tokens: 100,
  temperature: 0.5,
  top_p: 1,
  stop: ['x'],
  n: 1,
  user: 'u',
  seed: 1,
  stream: true,
  stream_options: { include_usage: true },
  reasoning_effort: 'low',
  parallel_tool_calls: false,
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'out', schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
  },
  tools: [
    {
      type: 'function',
      function: {
        name: 'get',
        description: 'd',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ],
  tool_choice: { type: 'function', function: { name: 'get' } },
  messages: [
    { role: 'system', content: 'S' },
    { role: 'developer', content: [{ type: 'text', text: 'D' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
        { type: 'image_url', image_url: { url: 'https://example.com/y.png' } },
      ],
    },
    {
      role: 'assistant',
      content: 'ok',
      reasoning_content: 'r',
      reasoning_signature: 's',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"city":"P"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '18' }] },
    { role: 'user', content: 'more' },
    { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
  ],
};
export const MESSAGES_REQUEST_SEED = {
  model: 'm',
  max_tokens: 4096,
  temperature: 0.5,
  top_p: 1,
  top_k: 5,
  stop_sequences: ['x'],
  stream: true,
  metadata: { user_id: 'u' },
  thinking: { type: 'enabled', budget_tokens: 2048 },
  system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }],
  tools: [
    { name: 'get', description: 'd', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  ],
  tool_choice: { type: 'tool', name: 'get', disable_parallel_tool_use: true },
  output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/y.png' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'redacted_thinking', data: 'r' },
        { type: 'text', text: 'ok' },
        { type: 'tool_use', id: 't1', name: 'get', input: { city: 'P' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [
            { type: 'text', text: '18' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
          is_error: true,
        },
        { type: 'text', text: 'more' },
      ],
    },
    { role: 'assistant', content: 'prefill' },
  ],
};
export const ANTHROPIC_REPLY_SEED = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  stop_reason: 'tool_use',
  stop_sequence: null,
  content: [
    { type: 'thinking', thinking: 't', signature: 's' },
    { type: 'text', text: 'hi' },
    { type: 'tool_use', id: 't1', name: 'get', input: { a: 1 } },
    { type: 'tool_use', id: 't2', name: 'json_response', input: { b: 2 } },
  ],
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1, cache_creation_input_tokens: 2 },
};
export const OPENAI_REPLY_SEED = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: 'hi',
        refusal: null,
        reasoning_content: 'r',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
      },
    },
  ],
  usage: {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    prompt_tokens_details: { cached_tokens: 2 },
    completion_tokens_details: { reasoning_tokens: 1 },
  },
};

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (at.length > 0) out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

export interface Mutator {
  /** The mutator's random source, for the caller's own choices (same sequence, same seed). */
  rand(): number;
  pick<T>(items: readonly T[]): T;
  /** `seed` with one to three values replaced by odd ones (or keys deleted), as parsed JSON. */
  mutate(seed: unknown): Record<string, unknown>;
}

export function createMutator(seed: number): Mutator {
  const rand = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const mutate = (source: unknown): Record<string, unknown> => {
    const doc = structuredClone(source) as Record<string, unknown>;
    for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
      const paths = pathsOf(doc);
      if (paths.length === 0) break;
      const path = pick(paths);
      let parent = doc as Record<string | number, unknown>;
      for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
      const last = path.at(-1)!;
      if (rand() < 0.15 && !Array.isArray(parent)) delete parent[last];
      else parent[last] = structuredClone(pick(ODD_VALUES));
    }
    return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  };
  return { rand, pick, mutate };
}
