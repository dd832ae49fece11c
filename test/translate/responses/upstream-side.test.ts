// The Responses dialect's upstream side on literal inputs: a hub request written as a Responses body,
// and an upstream's response object and raw SSE text (as api.openai.com sends them) read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { responsesUpstream } from '../../../src/dialects/openai-responses/index.ts';
import type { HubEvent } from '../../../src/spec/events.ts';
import type { HubRequest } from '../../../src/spec/form.ts';
import { parseSseText } from '../../helpers/schemas.ts';

const OPTS = { upstreamModel: 'gpt-5', defaultMaxTokens: 4096, refusedParams: ['temperature'] };

test('encode: a chat-born hub request as a Responses body; what the API has no place for is named', () => {
  const req: HubRequest = {
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'file', mediaType: 'image/jpeg', data: { url: 'https://x/y.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm', origin: 'messages', signature: 's' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', input: '{"city":"Paris"}' },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: 'Sunny' }] }],
      },
      { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
    ],
    tools: [
      {
        name: 'get_weather',
        kind: 'function',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
    toolChoice: { type: 'tool', name: 'get_weather' },
    maxOutputTokens: 300,
    temperature: 0.2,
    topP: 0.5,
    stopSequences: ['END'],
    stream: true,
    responseFormat: { type: 'json', schema: { type: 'object' }, name: 'weather' },
    reasoning: { effort: 'max' },
    extra: { logit_bias: { 1: 2 } },
    from: 'chat',
  };
  const enc = responsesUpstream.encodeRequest(req, OPTS);
  assert.deepEqual(JSON.parse(enc.body), {
    model: 'gpt-5',
    input: [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Weather?' },
          { type: 'input_image', image_url: 'https://x/y.jpg', detail: 'auto' },
        ],
      },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
      { type: 'message', role: 'developer', content: 'Answer in French.' },
    ],
    store: false,
    instructions: 'Be brief.',
    max_output_tokens: 300,
    top_p: 0.5,
    stream: true,
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        description: null,
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ],
    tool_choice: { type: 'function', name: 'get_weather' },
    text: { format: { type: 'json_schema', name: 'weather', schema: { type: 'object' }, strict: false } },
    reasoning: { effort: 'xhigh' },
    include: ['reasoning.encrypted_content'],
  });
  assert.deepEqual(enc.adjustments, [
    "reasoning of another model's making left out of the history",
    "temperature left out: the deployment's model refuses it",
    'stop sequences left out: the Responses API has none',
    'logit_bias left out',
  ]);
});

test('decode reply: reasoning with its encrypted content, text, a function call, usage with cached and reasoning tokens', () => {
  const reply = responsesUpstream.decodeReply(
    {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan' }], encrypted_content: 'gAAA' },
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Calling.', annotations: [] }],
        },
        { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      ],
      usage: {
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 30 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 8 },
        total_tokens: 70,
      },
    },
    null,
  );
  assert.deepEqual(reply, {
    id: 'resp_1',
    content: [
      { type: 'reasoning', text: 'Plan', origin: 'responses', encrypted: 'gAAA', id: 'rs_1' },
      { type: 'text', text: 'Calling.' },
      { type: 'tool-call', id: 'call_1', name: 'f', input: '{}', kind: 'function' },
    ],
    finish: 'tool-calls',
    usage: { inputTokens: 20, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 0, reasoningTokens: 8 },
  });
  const cut = responsesUpstream.decodeReply(
    { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] },
    null,
  );
  assert.equal(cut.finish, 'length');
  assert.equal(cut.usageMissing, true);
});

const OPENAI_SSE = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_9","object":"response","status":"in_progress","output":[]}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_9","object":"response","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_9","type":"reasoning","summary":[]}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":3,"item_id":"rs_9","output_index":0,"summary_index":0,"delta":"Think"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"id":"rs_9","type":"reasoning","summary":[{"type":"summary_text","text":"Think"}],"encrypted_content":"gAAB"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":5,"output_index":1,"item":{"id":"msg_9","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":6,"item_id":"msg_9","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_9","output_index":1,"content_index":0,"delta":"Hel"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":8,"item_id":"msg_9","output_index":1,"content_index":0,"delta":"lo"}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":9,"item_id":"msg_9","output_index":1,"content_index":0,"text":"Hello"}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":10,"item_id":"msg_9","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"Hello"}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":11,"output_index":1,"item":{"id":"msg_9","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"Hello"}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":12,"output_index":2,"item":{"id":"fc_9","type":"function_call","status":"in_progress","arguments":"","call_id":"call_9","name":"shell"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":13,"item_id":"fc_9","output_index":2,"delta":"{\\"a\\":1}"}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","sequence_number":14,"item_id":"fc_9","output_index":2,"arguments":"{\\"a\\":1}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":15,"output_index":2,"item":{"id":"fc_9","type":"function_call","status":"completed","arguments":"{\\"a\\":1}","call_id":"call_9","name":"shell"}}

event: response.completed
data: {"type":"response.completed","sequence_number":16,"response":{"id":"resp_9","object":"response","status":"completed","output":[],"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":2},"output_tokens":6,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":18}}}

`;

test('decode stream: raw OpenAI SSE into hub events, reasoning passed on whole with its encrypted content', () => {
  const dec = responsesUpstream.streamDecoder(null);
  const events: HubEvent[] = [];
  for (const e of parseSseText(OPENAI_SSE)) events.push(...dec.push(e));
  events.push(...dec.end());
  assert.deepEqual(events, [
    { type: 'start', id: 'resp_9' },
    { type: 'reasoning-start', index: 0, id: 'rs_9', encrypted: 'gAAB' },
    { type: 'reasoning-delta', index: 0, text: 'Think' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'Hel' },
    { type: 'text-delta', index: 1, text: 'lo' },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id: 'call_9', name: 'shell', kind: 'function' },
    { type: 'tool-call-delta', index: 2, input: '{"a":1}' },
    { type: 'tool-call-end', index: 2 },
    {
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 6, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 3 },
    },
    { type: 'finish', reason: 'tool-calls' },
  ]);
});

test('decode stream: an error event, a failed response and a cut stream each end in one hub error', () => {
  const one = (text: string): HubEvent[] => {
    const dec = responsesUpstream.streamDecoder(null);
    const out: HubEvent[] = [];
    for (const e of parseSseText(text)) out.push(...dec.push(e));
    return [...out, ...dec.end()];
  };
  const head = OPENAI_SSE.split('\n\n').slice(0, 2).join('\n\n') + '\n\n';
  const viaError = one(
    `${head}event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null,"sequence_number":2}\n\n`,
  );
  assert.deepEqual(viaError.at(-1), {
    type: 'error',
    status: 429,
    errorType: 'server_error',
    message: 'Slow down',
    code: 'rate_limit_exceeded',
    from: 'responses',
  });
  const failed = one(
    `${head}event: response.failed\ndata: {"type":"response.failed","sequence_number":2,"response":{"status":"failed","error":{"code":"server_error","message":"Broke"}}}\n\n`,
  );
  assert.equal(failed.filter((e) => e.type === 'error').length, 1);
  assert.equal((failed.at(-1) as { message: string }).message, 'Broke');
  const cut = one(head);
  assert.equal(cut.at(-1)!.type, 'error');
  assert.equal((cut.at(-1) as { status: number }).status, 502);
});
