// The agent mock's streamed replies, event by event, in the providers' wire formats. With tools offered:
// Anthropic thinking (signed) + a short text + a tool_use whose input comes as input_json_delta pieces;
// Responses a reasoning item (summary deltas, encrypted_content) + a function_call whose arguments come as
// deltas. Without tools, a short text. Usage carries the cache reading of the prompt.
import type { CacheReading } from './prefix-cache.ts';

export interface ReplyPlan {
  /** Unique per reply: tool-call and item ids are made from it. */
  serial: string;
  model: string;
  /** Blocks in the prompt: varies the reply's words from turn to turn. */
  turn: number;
  tools: readonly string[];
  reading: CacheReading;
  sign: (text: string) => string;
}

const OUTPUT_TOKENS = 96;

function sse(event: string, data: object): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The call an agent's model makes: a shell command on the session's next file. */
function toolCall(plan: ReplyPlan): { name: string; pieces: string[] } {
  const name = plan.tools.includes('Bash') ? 'Bash' : plan.tools.includes('shell') ? 'shell' : plan.tools[0];
  const args =
    name === 'shell'
      ? { command: ['bash', '-lc', `sed -n 1,400p src/module-${plan.turn}.ts`], workdir: '/repo', timeout_ms: 10000 }
      : { command: `sed -n 1,400p src/module-${plan.turn}.ts`, description: `Read module ${plan.turn}` };
  const json = JSON.stringify(args);
  const size = Math.ceil(json.length / 4);
  return { name, pieces: [0, 1, 2, 3].map((i) => json.slice(i * size, (i + 1) * size)) };
}

const THOUGHT = [
  'The user wants the failing test fixed. ',
  'I should read the module the stack trace names ',
  'before changing anything. ',
];

export function anthropicEvents(plan: ReplyPlan): string[] {
  const { reading } = plan;
  const usage = {
    input_tokens: reading.input - reading.read - reading.written,
    cache_creation_input_tokens: reading.written,
    cache_read_input_tokens: reading.read,
  };
  const message = {
    id: `msg_${plan.serial}`,
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 1 },
  };
  const events = [sse('message_start', { type: 'message_start', message })];
  const block = (index: number, start: object, deltas: object[]): void => {
    events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: start }));
    for (const delta of deltas) events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta }));
    events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  };
  let stop = 'end_turn';
  if (plan.tools.length === 0) {
    block(
      0,
      { type: 'text', text: '' },
      ['Done: ', 'nothing ', 'left.'].map((text) => ({ type: 'text_delta', text })),
    );
  } else {
    const thought = THOUGHT.map((t) => `${t}(turn ${plan.turn}) `);
    block(0, { type: 'thinking', thinking: '', signature: '' }, [
      ...thought.map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: plan.sign(thought.join('')) },
    ]);
    block(
      1,
      { type: 'text', text: '' },
      ['Reading ', 'the module ', 'first.'].map((text) => ({ type: 'text_delta', text })),
    );
    const call = toolCall(plan);
    block(
      2,
      { type: 'tool_use', id: `toolu_${plan.serial}`, name: call.name, input: {} },
      call.pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
    stop = 'tool_use';
  }
  events.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { ...usage, output_tokens: OUTPUT_TOKENS },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return events;
}

export function responsesEvents(plan: ReplyPlan): string[] {
  const { reading } = plan;
  let seq = 0;
  const events: string[] = [];
  const emit = (type: string, data: object): void => {
    events.push(sse(type, { type, sequence_number: seq++, ...data }));
  };
  const response = {
    id: `resp_${plan.serial}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'in_progress',
    model: plan.model,
    output: [] as object[],
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    usage: null as object | null,
  };
  emit('response.created', { response });
  emit('response.in_progress', { response });
  const output: object[] = [];
  if (plan.tools.length === 0) {
    const id = `msg_${plan.serial}`;
    const text = 'Done: nothing left.';
    emit('response.output_item.added', {
      output_index: 0,
      item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    for (const delta of ['Done: ', 'nothing ', 'left.'])
      emit('response.output_text.delta', { item_id: id, output_index: 0, content_index: 0, delta, logprobs: [] });
    const item = {
      id,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    };
    emit('response.output_item.done', { output_index: 0, item });
    output.push(item);
  } else {
    const rid = `rs_${plan.serial}`;
    const summary = THOUGHT.map((t) => `${t}(turn ${plan.turn}) `);
    emit('response.output_item.added', { output_index: 0, item: { id: rid, type: 'reasoning', summary: [] } });
    emit('response.reasoning_summary_part.added', {
      item_id: rid,
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    for (const delta of summary)
      emit('response.reasoning_summary_text.delta', { item_id: rid, output_index: 0, summary_index: 0, delta });
    const text = summary.join('');
    emit('response.reasoning_summary_text.done', { item_id: rid, output_index: 0, summary_index: 0, text });
    emit('response.reasoning_summary_part.done', {
      item_id: rid,
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text },
    });
    const reasoning = {
      id: rid,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text }],
      encrypted_content: plan.sign(rid),
    };
    emit('response.output_item.done', { output_index: 0, item: reasoning });
    const call = toolCall(plan);
    const fid = `fc_${plan.serial}`;
    const base = { id: fid, type: 'function_call', call_id: `call_${plan.serial}`, name: call.name };
    emit('response.output_item.added', { output_index: 1, item: { ...base, status: 'in_progress', arguments: '' } });
    for (const delta of call.pieces)
      emit('response.function_call_arguments.delta', { item_id: fid, output_index: 1, delta });
    const args = call.pieces.join('');
    emit('response.function_call_arguments.done', { item_id: fid, output_index: 1, arguments: args });
    const done = { ...base, status: 'completed', arguments: args };
    emit('response.output_item.done', { output_index: 1, item: done });
    output.push(reasoning, done);
  }
  emit('response.completed', {
    response: {
      ...response,
      status: 'completed',
      output,
      usage: {
        input_tokens: reading.input,
        input_tokens_details: { cached_tokens: reading.read },
        output_tokens: OUTPUT_TOKENS,
        output_tokens_details: { reasoning_tokens: 64 },
        total_tokens: reading.input + OUTPUT_TOKENS,
      },
    },
  });
  return events;
}
