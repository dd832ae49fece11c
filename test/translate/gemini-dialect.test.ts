// The Gemini dialect's hub sides on literal inputs (issue 40): golden Gemini request bodies decoded into
// the hub form and the form encoded into Gemini bodies; raw Gemini SSE text decoded into hub events;
// hub events encoded into the SSE text a Gemini caller reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseDecoder } from '../../src/core/sse.ts';
import type { ClientReplyContext } from '../../src/spec/codec.ts';
import type { HubEvent } from '../../src/spec/events.ts';
import type { HubRequest } from '../../src/spec/form.ts';
import { TranslationError } from '../../src/spec/translation-error.ts';
import { decodeGeminiRequest } from '../../src/dialects/gemini/decode-request.ts';
import { encodeGeminiRequest, SKIP_SIGNATURE } from '../../src/dialects/gemini/encode-request.ts';
import { GeminiStreamDecoder } from '../../src/dialects/gemini/decode-stream.ts';
import { decodeGeminiReply } from '../../src/dialects/gemini/decode-reply.ts';
import { GeminiStreamEncoder } from '../../src/dialects/gemini/encode-stream.ts';
import { encodeGeminiReply } from '../../src/dialects/gemini/encode-reply.ts';
import { geminiProvider } from '../../src/providers/gemini/index.ts';
import { targetQuery } from '../../src/spec/provider.ts';

const OPTS = { upstreamModel: 'gemini-2.5-flash', defaultMaxTokens: 4096, refusedParams: [] };

test('decode: a Gemini CLI style request with thoughts, a function call round trip, images and every config field', () => {
  const body = JSON.parse(`{
    "systemInstruction": {"parts": [{"text": "You are a CLI agent."}]},
    "contents": [
      {"role": "user", "parts": [{"text": "What is in this picture and in my files?"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}, {"fileData": {"mimeType": "application/pdf", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}}]},
      {"role": "model", "parts": [{"text": "Let me look.", "thought": true, "thoughtSignature": "c2lnMQ=="}, {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}, "thoughtSignature": "c2lnMg=="}, {"functionCall": {"id": "fc-7", "name": "read_file", "args": {"path": "a.txt"}}}]},
      {"role": "user", "parts": [{"functionResponse": {"id": "fc-7", "name": "read_file", "response": {"output": "hello"}}}, {"functionResponse": {"name": "run_shell_command", "response": {"output": "a.txt"}}}, {"text": "Now summarise."}]}
    ],
    "tools": [{"functionDeclarations": [
      {"name": "run_shell_command", "description": "Runs a shell command", "parametersJsonSchema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
      {"name": "read_file", "parameters": {"type": "OBJECT", "properties": {"path": {"type": "STRING"}, "lines": {"type": "ARRAY", "items": {"type": "INTEGER"}}}}}
    ]}],
    "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}},
    "generationConfig": {"maxOutputTokens": 1000, "temperature": 0.2, "topP": 0.9, "topK": 40, "stopSequences": ["END"], "responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {"answer": {"type": "STRING"}}}, "thinkingConfig": {"thinkingBudget": 2048, "includeThoughts": true}, "seed": 7},
    "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
  }`) as Record<string, unknown>;
  const req = decodeGeminiRequest(body, { stream: true });
  const expected: HubRequest = {
    system: [{ type: 'text', text: 'You are a CLI agent.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture and in my files?' },
          { type: 'file', mediaType: 'image/png', data: { base64: 'iVBORw0KGgo=' } },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { url: 'https://generativelanguage.googleapis.com/v1beta/files/abc' },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Let me look.', origin: 'gemini', signature: 'c2lnMQ==' },
          {
            type: 'tool-call',
            id: 'call_gemini_0',
            name: 'run_shell_command',
            input: '{"command":"ls"}',
            signature: 'c2lnMg==',
          },
          { type: 'tool-call', id: 'fc-7', name: 'read_file', input: '{"path":"a.txt"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'fc-7', name: 'read_file', content: [{ type: 'text', text: 'hello' }] },
          {
            type: 'tool-result',
            callId: 'call_gemini_0',
            name: 'run_shell_command',
            content: [{ type: 'text', text: 'a.txt' }],
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Now summarise.' }] },
    ],
    tools: [
      {
        name: 'run_shell_command',
        kind: 'function',
        description: 'Runs a shell command',
        inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
      {
        name: 'read_file',
        kind: 'function',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, lines: { type: 'array', items: { type: 'integer' } } },
        },
      },
    ],
    toolChoice: { type: 'tool', name: 'read_file' },
    stream: true,
    maxOutputTokens: 1000,
    temperature: 0.2,
    topP: 0.9,
    topK: 40,
    stopSequences: ['END'],
    responseFormat: {
      type: 'json',
      schema: { type: 'object', properties: { answer: { type: 'string' } } },
      name: 'response',
    },
    reasoning: { budgetTokens: 2048, summary: 'auto' },
    extra: { seed: 7, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
    from: 'gemini',
  };
  assert.deepEqual(req, expected);
});

test('decode: what the hub cannot hold is a 400 naming the field', () => {
  const contents = [{ role: 'user', parts: [{ text: 'x' }] }];
  assert.throws(
    () => decodeGeminiRequest({ contents, tools: [{ googleSearch: {} }] }),
    (e: unknown) => e instanceof TranslationError && e.param === 'tools[0].googleSearch',
  );
  assert.throws(
    () => decodeGeminiRequest({ contents, generationConfig: { candidateCount: 2 } }),
    (e: unknown) => e instanceof TranslationError && e.param === 'generationConfig.candidateCount',
  );
  assert.throws(
    () => decodeGeminiRequest({ contents: [{ role: 'user', parts: [{ executableCode: { code: 'x' } }] }] }),
    (e: unknown) => e instanceof TranslationError && e.param === 'contents[0].parts[0]',
  );
  assert.deepEqual(
    decodeGeminiRequest({ contents, generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }).reasoning,
    { effort: 'none' },
  );
  assert.deepEqual(
    decodeGeminiRequest({
      contents,
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
    }).toolChoice,
    { type: 'none' },
  );
});

test('encode: a chat-born request becomes a Gemini body; turns merged, tool results named, signatures placed', () => {
  const req: HubRequest = {
    system: [{ type: 'text', text: 'Be terse.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'List files' },
          { type: 'file', mediaType: 'image/jpeg', data: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking elsewhere', origin: 'messages', signature: 'anthropic-sig' },
          { type: 'text', text: 'Running it.' },
          { type: 'tool-call', id: 'call_1', name: 'shell', input: '{"cmd":"ls"}' },
          { type: 'tool-call', id: 'call_2', name: 'shell', input: '{"cmd":"pwd"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: 'a.txt' }] },
          { type: 'tool-result', callId: 'call_2', content: [{ type: 'text', text: 'denied' }], isError: true },
        ],
      },
      { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ],
    tools: [
      {
        name: 'shell',
        kind: 'function',
        description: 'Run',
        inputSchema: { type: 'object', properties: { cmd: { type: 'string' } }, additionalProperties: false },
      },
    ],
    toolChoice: { type: 'required' },
    maxOutputTokens: 200,
    temperature: 0.5,
    stopSequences: ['STOP'],
    stream: true,
    reasoning: { effort: 'low' },
    responseFormat: { type: 'json', schema: { type: 'object' }, name: 'r' },
    extra: { seed: 1 },
    from: 'chat',
  };
  const encoded = encodeGeminiRequest(req, { ...OPTS, refusedParams: ['temperature'] });
  const target = geminiProvider.target(
    {
      name: 'g',
      kind: 'gemini',
      baseUrl: 'https://g.example',
      apiKeys: [],
      headers: {},
      options: null,
      system: 'gemini',
      inProcess: false,
    },
    { id: 'm#0', provider: null as never, model: 'gemini-2.5-flash', priority: 0, weight: 1 },
    targetQuery('generate', 'gemini', true),
  );
  assert.equal(target.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  assert.deepEqual(JSON.parse(encoded.body), {
    contents: [
      {
        role: 'user',
        parts: [
          { text: 'List files' },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Running it.' },
          { functionCall: { name: 'shell', args: { cmd: 'ls' } }, thoughtSignature: SKIP_SIGNATURE },
          { functionCall: { name: 'shell', args: { cmd: 'pwd' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'shell', response: { output: 'a.txt' } } },
          { functionResponse: { name: 'shell', response: { error: 'denied' } } },
          { text: 'System: Answer in French.' },
          { text: 'Thanks' },
        ],
      },
    ],
    systemInstruction: { parts: [{ text: 'Be terse.' }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'shell',
            description: 'Run',
            parametersJsonSchema: {
              type: 'object',
              properties: { cmd: { type: 'string' } },
              additionalProperties: false,
            },
          },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    generationConfig: {
      maxOutputTokens: 200,
      stopSequences: ['STOP'],
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
      thinkingConfig: { thinkingBudget: 1024 },
    },
  });
  assert.deepEqual(encoded.adjustments.sort(), [
    'a system message inside the conversation sent as a user turn',
    'reasoning from another model left out of the history',
    'seed left out: Gemini has no equivalent',
    "temperature left out: the deployment's model refuses it",
  ]);
});

test('a Gemini request decoded and encoded again for a Gemini upstream keeps its thoughts, signatures and Gemini-only fields', () => {
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'hi' }] },
      {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 'sig-a' },
          { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig-b' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'ok' } } }] },
    ],
    generationConfig: { seed: 3 },
    safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
  };
  const out = JSON.parse(encodeGeminiRequest(decodeGeminiRequest(body), OPTS).body) as Record<string, unknown>;
  assert.deepEqual(out.contents, body.contents);
  assert.deepEqual(out.generationConfig, { seed: 3 });
  assert.deepEqual(out.safetySettings, body.safetySettings);
});

// Gemini's own stream framing: CRLF, a usageMetadata on every chunk, the last with the finishReason.
const GEMINI_SSE = [
  'data: {"candidates": [{"content": {"parts": [{"text": "Considering the files","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"totalTokenCount": 12,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 12}]},"modelVersion": "gemini-2.5-flash","responseId": "r1"}\r\n\r\n',
  'data: {"candidates": [{"content": {"parts": [{"text": "I will list them.","thoughtSignature": "c2ln"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 12,"candidatesTokenCount": 5,"totalTokenCount": 17},"modelVersion": "gemini-2.5-flash","responseId": "r1"}\r\n\r\n',
  'data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "run_shell_command","args": {"command": "ls"}},"thoughtSignature": "c2lnMg=="}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 12,"candidatesTokenCount": 20,"totalTokenCount": 60,"cachedContentTokenCount": 4,"thoughtsTokenCount": 28},"modelVersion": "gemini-2.5-flash","responseId": "r1"}\r\n\r\n',
].join('');

function decodeSse(text: string): HubEvent[] {
  const sse = new SseDecoder();
  const decoder = new GeminiStreamDecoder();
  const events: HubEvent[] = [];
  // Fed in awkward pieces, as TCP delivers them.
  for (let i = 0; i < text.length; i += 37)
    for (const ev of sse.push(Buffer.from(text.slice(i, i + 37)))) events.push(...decoder.push(ev));
  for (const ev of sse.end()) events.push(...decoder.push(ev));
  events.push(...decoder.end());
  return events;
}

test('stream decode: raw Gemini SSE → hub events, thoughts and text apart, a whole function call, usage with cached and thoughts tokens', () => {
  const events = decodeSse(GEMINI_SSE);
  const start = events.findIndex((e) => e.type === 'tool-call-start');
  const id = (events[start] as { id: string }).id;
  assert.match(id, /^call_/);
  assert.deepEqual(events, [
    { type: 'start' },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: 'Considering the files' },
    {
      type: 'usage',
      usage: { inputTokens: 12, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      partial: true,
    },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'I will list them.' },
    {
      type: 'usage',
      usage: { inputTokens: 12, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      partial: true,
    },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id, name: 'run_shell_command', signature: 'c2lnMg==' },
    { type: 'tool-call-delta', index: 2, input: '{"command":"ls"}' },
    { type: 'tool-call-end', index: 2 },
    {
      type: 'usage',
      usage: { inputTokens: 8, outputTokens: 48, cacheReadTokens: 4, cacheWriteTokens: 0, reasoningTokens: 28 },
    },
    { type: 'finish', reason: 'tool-calls' },
  ]);
});

test('stream decode: a stream cut before its finishReason ends in an error event; an in-stream error is read', () => {
  const cut = decodeSse(GEMINI_SSE.split('\r\n\r\n')[0] + '\r\n\r\n');
  assert.deepEqual(cut.at(-1), {
    type: 'error',
    status: 502,
    errorType: 'UNAVAILABLE',
    message: 'The upstream stream ended before it was complete.',
  });
  const failed = decodeSse(
    'data: {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}\r\n\r\n',
  );
  assert.deepEqual(failed, [
    { type: 'start' },
    { type: 'error', status: 503, errorType: 'UNAVAILABLE', message: 'The model is overloaded.', from: 'gemini' },
  ]);
});

test('reply decode: a whole generateContent body is the fold of its one chunk', () => {
  const reply = decodeGeminiReply(
    JSON.parse(
      '{"candidates":[{"content":{"parts":[{"text":"Hello"},{"text":" there"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},"modelVersion":"gemini-2.5-flash"}',
    ) as Record<string, unknown>,
  );
  assert.deepEqual(reply, {
    content: [{ type: 'text', text: 'Hello there' }],
    finish: 'length',
    usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  const blocked = decodeGeminiReply({
    promptFeedback: { blockReason: 'SAFETY' },
    usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
  });
  assert.equal(blocked.finish, 'content-filter');
});

function ctx(request: Partial<HubRequest> = {}): ClientReplyContext {
  return {
    model: 'my-model',
    created: 1_700_000_000,
    request: { system: [], messages: [], tools: [], stream: true, extra: {}, from: 'gemini', ...request },
    promptEstimate: () => 1,
  };
}

test('stream encode: hub events → the SSE a Gemini caller reads; the last chunk carries finishReason and usage', () => {
  const enc = new GeminiStreamEncoder(ctx({ reasoning: { summary: 'auto' } }));
  const events: HubEvent[] = [
    { type: 'start' },
    { type: 'reasoning-start', index: 0 },
    { type: 'reasoning-delta', index: 0, text: 'hmm' },
    { type: 'reasoning-end', index: 0 },
    { type: 'text-start', index: 1 },
    { type: 'text-delta', index: 1, text: 'Hel' },
    { type: 'text-delta', index: 1, text: 'lo' },
    { type: 'text-end', index: 1 },
    { type: 'tool-call-start', index: 2, id: 'toolu_1', name: 'shell' },
    { type: 'tool-call-delta', index: 2, input: '{"cmd":' },
    { type: 'tool-call-delta', index: 2, input: '"ls"}' },
    { type: 'tool-call-end', index: 2 },
    {
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 3 },
    },
    { type: 'finish', reason: 'tool-calls' },
  ];
  const text = events.map((e) => enc.push(e)).join('');
  const chunks = text
    .split('\r\n\r\n')
    .filter((s) => s !== '')
    .map((s) => {
      assert.ok(s.startsWith('data: '));
      return JSON.parse(s.slice(6)) as {
        candidates: Array<{ content: { parts: unknown[] }; finishReason?: string }>;
        usageMetadata?: unknown;
        modelVersion: string;
      };
    });
  assert.deepEqual(
    chunks.map((c) => c.candidates[0].content.parts),
    [
      [{ text: 'hmm', thought: true }],
      [{ text: 'Hel' }],
      [{ text: 'lo' }],
      [{ functionCall: { id: 'toolu_1', name: 'shell', args: { cmd: 'ls' } } }],
    ],
  );
  assert.deepEqual(
    chunks.map((c) => c.candidates[0].finishReason),
    [undefined, undefined, undefined, 'STOP'],
  );
  assert.deepEqual(chunks.at(-1)!.usageMetadata, {
    promptTokenCount: 12,
    candidatesTokenCount: 4,
    totalTokenCount: 19,
    cachedContentTokenCount: 2,
    thoughtsTokenCount: 3,
  });
  assert.ok(chunks.every((c) => c.modelVersion === 'my-model'));
  // Without includeThoughts the thoughts are not shown; an error ends the stream in Gemini's shape.
  const quiet = new GeminiStreamEncoder(ctx());
  const out = [
    quiet.push({ type: 'start' }),
    quiet.push({ type: 'reasoning-delta', index: 0, text: 'x' }),
    quiet.push({ type: 'error', status: 429, errorType: 'rate_limit_error', message: 'slow down' }),
  ].join('');
  assert.equal(out, 'data: {"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n');
});

test('reply encode: a GenerateContentResponse with the caller model, its function call ids and usage', () => {
  const body = JSON.parse(
    encodeGeminiReply(
      {
        content: [
          { type: 'reasoning', text: 'secret' },
          { type: 'text', text: 'Done.' },
          { type: 'tool-call', id: 'call_9', name: 'f', input: '' },
        ],
        finish: 'tool-calls',
        usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      ctx(),
    ),
  ) as Record<string, unknown>;
  assert.deepEqual(body.candidates, [
    {
      content: { parts: [{ text: 'Done.' }, { functionCall: { id: 'call_9', name: 'f', args: {} } }], role: 'model' },
      finishReason: 'STOP',
      index: 0,
    },
  ]);
  assert.deepEqual(body.usageMetadata, { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 });
  assert.equal(body.modelVersion, 'my-model');
});
