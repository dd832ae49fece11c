// The OpenResponses compliance suite (github.com/openresponses/openresponses), ported case by case. The suite
// is a website that runs under Bun and is published to no registry, so its cases live here: the same
// requests, the same validators, the same schemas (test/fixtures/openresponses/schemas.json, see SOURCE.md).
//
// Source revisions:
// - `src/lib/compliance-tests.ts` at main 92c12d96d7b61d6d15e2214daa5e9c6000ab6e1c (2026-07-15): every case
//   but the four below.
// - `tool-calling-streaming`: the same file at 0cb939ccf839234347b4f0c317569b49fad8fd0e.
// - `function-call-roundtrip`, `previous-response-id`, `file-input`: the revision whose CLI
//   (`bin/compliance-test.ts` at 18e565604fdf7a08ad3a06bbc30d1ddaee999ea4) takes the file-search and
//   web-search options; its two optional cases (`file-search`, `offline-web-search`) are skipped by the
//   suite itself unless a vector store or an offline web index is configured, and so here.
//
// Checking as the suite does: a zod union of event schemas is read as `anyOf` (an event passes when it
// matches one), objects admit unknown keys, and a terminal event's `response` is the response checked.
// Stricter than the suite in one way: a property the schema gives a `default` must still be present (zod
// would fill it in), because real clients read those fields.

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import WebSocket from 'ws';
import { parseSseText } from './schemas.ts';

type Json = Record<string, unknown>;

export interface SuiteConfig {
  /** The API base, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** A vector store for the optional `file-search` case (the suite's `--file-search-vector-store-id`). */
  fileSearchVectorStoreId?: string;
}

export interface CaseResult {
  status: 'passed' | 'failed' | 'skipped';
  errors: string[];
}

export interface SuiteCase {
  id: string;
  name: string;
  /** The request the case sends first (what a route refusing the case is asked). */
  request?: (config: SuiteConfig) => Json;
  /** Where `request` goes; default `/responses`. */
  endpoint?: string;
  /** Skipped by the suite itself, with this reason. */
  skippedBySuite?: string;
  run: (config: SuiteConfig) => Promise<string[]>;
}

// ---- schemas ----

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/openresponses/schemas.json', import.meta.url), 'utf8'),
) as { streamingEvents: string[]; schemas: Json };

function asUnion(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asUnion);
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k === 'oneOf' ? 'anyOf' : k] = asUnion(x);
  return out;
}

const ROOT = 'https://modelgate.invalid/openresponses';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: ROOT, components: { schemas: asUnion(fixture.schemas) } });
const ref = (name: string) => ({ $ref: `${ROOT}#/components/schemas/${name}` });
const validators = {
  response: ajv.compile(ref('ResponseResource')),
  compact: ajv.compile(ref('CompactResource')),
};
/** Each event's schema by its `type` (the members of the suite's union have distinct `type` constants). */
const eventSchemas = new Map<string, ValidateFunction[]>();
for (const name of [...fixture.streamingEvents, 'WebSocketErrorEvent']) {
  const type = (((fixture.schemas[name] as Json).properties as Json).type as { enum: string[] }).enum[0];
  eventSchemas.set(type, [...(eventSchemas.get(type) ?? []), ajv.compile(ref(name))]);
}

function issues(fn: ValidateFunction, value: unknown, prefix = ''): string[] {
  if (fn(value)) return [];
  const lines = (fn.errors ?? []).map(
    (e) => `${prefix}${e.instancePath || '(root)'}: ${e.message} ${JSON.stringify(e.params)}`,
  );
  return [...new Set(lines)].slice(0, 12);
}

/** An event passes when one schema of its type accepts it; over HTTP the WebSocket error shape is not one. */
function eventIssues(ev: Json, transport: 'http' | 'websocket'): string[] {
  const prefix = `Event ${String(ev.type)} `;
  const fns = (eventSchemas.get(String(ev.type)) ?? []).filter((_, i) => transport === 'websocket' || i === 0);
  if (fns.length === 0) return [`${prefix}: not an event of the OpenResponses stream`];
  const all = fns.map((fn) => issues(fn, ev, prefix));
  return all.some((list) => list.length === 0) ? [] : all[0];
}

// ---- transport ----

interface StreamResult {
  events: Json[];
  errors: string[];
  final: Json | null;
  errorCode?: string | null;
}

function terminal(ev: Json): Json | null {
  return ev.type === 'response.completed' || ev.type === 'response.failed' || ev.type === 'response.incomplete'
    ? ((ev.response as Json | undefined) ?? null)
    : null;
}

async function post(config: SuiteConfig, endpoint: string, body: Json, stream = false): Promise<Response> {
  return fetch(`${config.baseUrl}${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
    body: JSON.stringify(stream ? { ...body, stream: true } : body),
  });
}

async function readStream(res: Response): Promise<StreamResult> {
  const out: StreamResult = { events: [], errors: [], final: null };
  for (const sse of parseSseText(await res.text())) {
    if (sse.data === '' || sse.data === '[DONE]') continue;
    let ev: Json;
    try {
      ev = JSON.parse(sse.data) as Json;
    } catch {
      out.errors.push(`Failed to parse event data: ${sse.data}`);
      continue;
    }
    out.events.push(ev);
    out.errors.push(...eventIssues(ev, 'http'));
    out.final = terminal(ev) ?? out.final;
  }
  return out;
}

type Step = Json | ((previous: StreamResult[]) => Json);

/** One WebSocket connection, one `response.create` frame per step, each sent once the previous one ended. */
async function wsSession(config: SuiteConfig, steps: Step[]): Promise<StreamResult[]> {
  const url = `${config.baseUrl.replace(/^http/, 'ws')}/responses`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${config.apiKey}` } });
  const turns: StreamResult[] = [];
  return new Promise((resolve, reject) => {
    let current: StreamResult | undefined;
    const next = (): void => {
      if (turns.length === steps.length) {
        ws.close();
        resolve(turns);
        return;
      }
      const step = steps[turns.length];
      current = { events: [], errors: [], final: null, errorCode: null };
      turns.push(current);
      ws.send(JSON.stringify(typeof step === 'function' ? step(turns.slice(0, -1)) : step));
    };
    ws.on('open', next);
    ws.on('error', reject);
    ws.on('close', () => {
      if (turns.length < steps.length || (current && current.final === null && current.errorCode === null))
        current?.errors.push('WebSocket closed before a terminal response event');
      resolve(turns);
    });
    ws.on('message', (data) => {
      if (current === undefined) return;
      const ev = JSON.parse(data.toString()) as Json;
      current.events.push(ev);
      current.errors.push(...eventIssues(ev, 'websocket'));
      const final = terminal(ev);
      const code = errorCode(ev);
      if (final !== null) current.final = final;
      if (final === null && ev.type === 'error') {
        current.errorCode = code;
        if (code === null) current.errors.push(`WebSocket error event: ${JSON.stringify(ev)}`);
      }
      if (final !== null || ev.type === 'error' || code !== null) next();
    });
  });
}

function errorCode(v: unknown): string | null {
  const error = typeof v === 'object' && v !== null ? (v as Json).error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as Json).code : undefined;
  return typeof code === 'string' ? code : null;
}

const turnErrorCode = (t: StreamResult | undefined) => t?.errorCode ?? errorCode(t?.final);

// ---- validators (as the suite names them) ----

type Check = (response: Json, stream?: StreamResult) => string[];

const hasOutput: Check = (r) =>
  Array.isArray(r.output) && r.output.length > 0 ? [] : ['Response has no output items'];
const hasOutputType =
  (type: string): Check =>
  (r) =>
    (r.output as Json[] | undefined)?.some((i) => i.type === type)
      ? []
      : [`Expected output item of type "${type}" but none found`];
const completedStatus: Check = (r) =>
  r.status === 'completed' ? [] : [`Expected status "completed" but got "${String(r.status)}"`];
const streamingEvents: Check = (_, s) =>
  s === undefined || s.events.length > 0 ? [] : ['No streaming events received'];
const streamingSchema: Check = (_, s) => s?.errors ?? [];
const compactObject: Check = (r) =>
  r.object === 'response.compaction' ? [] : [`Expected object "response.compaction" but got "${String(r.object)}"`];
const functionCallEvents: Check = (_, s) => {
  const events = s?.events ?? [];
  const types = events.map((e) => e.type);
  const errors: string[] = [];
  const item = (t: string) =>
    events.some((e) => e.type === t && (e.item as Json | undefined)?.type === 'function_call');
  if (!item('response.output_item.added'))
    errors.push('Missing response.output_item.added event with function_call item');
  if (!types.includes('response.function_call_arguments.delta'))
    errors.push('Missing response.function_call_arguments.delta event');
  if (!types.includes('response.function_call_arguments.done'))
    errors.push('Missing response.function_call_arguments.done event');
  if (!item('response.output_item.done'))
    errors.push('Missing response.output_item.done event with function_call item');
  return errors;
};

/** The final response checked against ResponseResource, then the case's validators. */
function checkResponse(final: unknown, checks: Check[], stream?: StreamResult): string[] {
  const schema = issues(validators.response, final);
  if (schema.length > 0) return [...(stream?.errors ?? []), ...schema];
  return checks.flatMap((c) => c(final as Json, stream));
}

async function httpCase(config: SuiteConfig, body: Json, checks: Check[], stream = false): Promise<string[]> {
  const res = await post(config, '/responses', body, stream);
  if (res.status !== 200) return [`HTTP ${res.status}: ${await res.text()}`];
  if (!stream) return checkResponse(await res.json(), checks);
  const s = await readStream(res);
  return checkResponse(s.final, checks, s);
}

async function wsCase(config: SuiteConfig, body: Json, checks: Check[]): Promise<string[]> {
  const [turn] = await wsSession(config, [body]);
  return checkResponse(turn.final, checks, turn);
}

/** A non-streamed first turn whose response must validate before a second turn is sent. */
async function firstTurn(config: SuiteConfig, body: Json): Promise<{ response?: Json; errors: string[] }> {
  const res = await post(config, '/responses', body);
  if (res.status !== 200) return { errors: [`HTTP ${res.status}: ${await res.text()}`] };
  const response = (await res.json()) as Json;
  return { response, errors: issues(validators.response, response) };
}

// ---- requests ----

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};
const RED_HEART_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAABmklEQVR42tyWAaTyUBzFew/eG4AHz+MBSAHKBiJRGFKwIgQQJKLUIioBIhCAiCAAEizAQIAECaASqFFJq84nudjnaqvuPnxzgP9xfrq5938csPn7PwHTKSoViCIEAYEAMhmoKsU2mUCWEQqB5xEMIp/HaGQG2G6RSuH9HQ7H34rFrtPbdz4jl6PbwmEsl3QA1mt4vcRKk8dz9eg6IpF7tt9fzGY0gCgafFRFo5Blc5vLhf3eCOj1yNhM5GRMVK0aATxPZoz09YXjkQDmczJgquGQAPp9WwCNBgG027YACgUC6HRsAZRKBDAY2AJoNv/ZnwzA6WScznG3p4UAymXGAEkyXrTFAh8fLAGqagQAyGaZpYsi7bHTNPz8MEj//LxuFPo+UBS8vb0KaLXubrRa7aX0RMLCykwmn0z3+XA4WACcTpCkh9MFAZpmuVXo+mO/w+/HZvNgbblcUCxaSo/Hyck80Yu6XXDcvfVZr79cvMZjuN2U9O9vKAqjZrfbIZ0mV4TUi9Xqz6jddNy//7+e3n8Fhf/Llo2kxi8AQyGRoDkmAhAAAAAASUVORK5CYII=';
const FIXTURE_PDF =
  'data:application/pdf;base64,JVBERi0xLjEKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCAzMDAgMTQ0XSAvQ29udGVudHMgNCAwIFIgL1Jlc291cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIgPj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCA3NCA+PgpzdHJlYW0KQlQKL0YxIDEyIFRmCjcyIDcyIFRkCihUaXRsZTogT3BlblJlc3BvbnNlcyBGaWxlIElucHV0IEZpeHR1cmUpIFRqCkVUCmVuZHN0cmVhbQplbmRvYmoKNSAwIG9iago8PCAvVHlwZSAvRm9udCAvU3VidHlwZSAvVHlwZTEgL0Jhc2VGb250IC9IZWx2ZXRpY2EgPj4KZW5kb2JqCnRyYWlsZXIKPDwgL1Jvb3QgMSAwIFIgPj4KJSVFT0Y=';

const msg = (role: string, content: unknown) => ({ type: 'message', role, content });
const wsCreate = (config: SuiteConfig, rest: Json): Json => ({ type: 'response.create', model: config.model, ...rest });

const assistantPhase = (c: SuiteConfig) => ({
  model: c.model,
  input: [
    { ...msg('assistant', 'I should answer with the saved number.'), phase: 'commentary' },
    { ...msg('assistant', 'The number is four.'), phase: 'final_answer' },
    msg('user', 'Repeat only the number.'),
  ],
});
const systemPrompt = (c: SuiteConfig) => ({
  model: c.model,
  input: [msg('system', 'You are a pirate. Always respond in pirate speak.'), msg('user', 'Say hello.')],
});
const forcedToolCall = (c: SuiteConfig) => ({
  model: c.model,
  input: 'Use the weather tool to get the temperature in San Francisco.',
  tools: [WEATHER_TOOL],
  tool_choice: { type: 'function', name: 'get_weather' },
});
const imageInput = (c: SuiteConfig) => ({
  model: c.model,
  input: [
    msg('user', [
      { type: 'input_text', text: 'What do you see in this image? Answer in one sentence.' },
      { type: 'input_image', image_url: RED_HEART_PNG },
    ]),
  ],
});
const fileInput = (c: SuiteConfig) => ({
  model: c.model,
  input: [
    msg('user', [
      { type: 'input_text', text: 'Read the attached file and answer with its title only.' },
      { type: 'input_file', filename: 'openresponses-fixture.pdf', file_data: FIXTURE_PDF },
    ]),
  ],
});
const multiTurn = (c: SuiteConfig) => ({
  model: c.model,
  input: [
    msg('user', 'My name is Alice.'),
    msg('assistant', 'Hello Alice! Nice to meet you. How can I help you today?'),
    msg('user', 'What is my name?'),
  ],
});
const compactRequest = (c: SuiteConfig) => ({
  model: c.model,
  prompt_cache_key: 'openresponses-compact-test',
  input: [
    msg('user', 'We agreed to launch on Tuesday and notify support first.'),
    msg('assistant', 'Understood. The launch is Tuesday, with support notified beforehand.'),
  ],
});
const basic = (c: SuiteConfig) => ({ model: c.model, input: [msg('user', 'Say hello in exactly 3 words.')] });
const toolCall = (c: SuiteConfig) => ({
  model: c.model,
  input: [msg('user', "What's the weather like in San Francisco?")],
  tools: [WEATHER_TOOL],
});

// ---- the cases ----

export const SUITE_CASES: SuiteCase[] = [
  {
    id: 'basic-response',
    name: 'Basic Text Response',
    request: basic,
    run: (c) => httpCase(c, basic(c), [hasOutput, completedStatus]),
  },
  {
    id: 'assistant-phase',
    name: 'Assistant Message Phase',
    request: assistantPhase,
    run: (c) => httpCase(c, assistantPhase(c), [hasOutput, completedStatus]),
  },
  {
    id: 'response-output-phase-schema',
    name: 'Response Output Phase Schema',
    skippedBySuite: "a check of the suite's own schema against a fixed object; no request is sent",
    run: async () => [],
  },
  {
    id: 'streaming-response',
    name: 'Streaming Response',
    request: (c) => ({ model: c.model, input: [msg('user', 'Count from 1 to 5.')], stream: true }),
    run: (c) =>
      httpCase(
        c,
        { model: c.model, input: [msg('user', 'Count from 1 to 5.')] },
        [streamingEvents, streamingSchema, completedStatus],
        true,
      ),
  },
  {
    id: 'websocket-response',
    name: 'WebSocket Response',
    run: (c) =>
      wsCase(c, wsCreate(c, { input: [msg('user', 'Count from 1 to 3.')] }), [
        streamingEvents,
        streamingSchema,
        completedStatus,
      ]),
  },
  {
    id: 'websocket-sequential-responses',
    name: 'WebSocket Sequential Responses',
    run: async (c) => {
      const turns = await wsSession(c, [
        wsCreate(c, { store: false, input: 'Reply with exactly: first' }),
        wsCreate(c, { store: false, input: 'Reply with exactly: second' }),
      ]);
      return turns.flatMap((t, i) =>
        checkResponse(t.final, [streamingEvents, streamingSchema, completedStatus], t).map(
          (e) => `Turn ${i + 1}: ${e}`,
        ),
      );
    },
  },
  {
    id: 'websocket-continuation',
    name: 'WebSocket Continuation',
    run: async (c) => {
      const [first, second] = await wsSession(c, [
        wsCreate(c, { store: false, input: 'Remember the code word: cobalt. Reply with OK.' }),
        (prev) =>
          wsCreate(c, {
            store: false,
            previous_response_id: prev[0]?.final?.id,
            input: 'What is the code word? Reply with only the code word.',
          }),
      ]);
      const firstErrors = [...first.errors, ...issues(validators.response, first.final)];
      if (firstErrors.length > 0) return firstErrors;
      return checkResponse(second?.final, [streamingEvents, streamingSchema, completedStatus], second);
    },
  },
  {
    id: 'websocket-reconnect-store-false-recovery',
    name: 'WebSocket Store False Reconnect Recovery',
    run: async (c) => {
      const [first] = await wsSession(c, [
        wsCreate(c, { store: false, input: 'Remember the code word: copper. Reply with OK.' }),
      ]);
      const firstErrors = [...first.errors, ...issues(validators.response, first.final)];
      if (firstErrors.length > 0) return firstErrors;
      const [reconnect, recovery] = await wsSession(c, [
        wsCreate(c, {
          store: false,
          previous_response_id: first.final?.id,
          input: 'Try to continue after reconnect. Reply with exactly: reconnected',
        }),
        wsCreate(c, {
          store: false,
          input: [
            msg(
              'user',
              'The previous store:false chain could not continue after reconnect. Start a new response and reply with exactly: recovered',
            ),
          ],
        }),
      ]);
      const errors = [...reconnect.errors];
      const code = turnErrorCode(reconnect);
      if (code !== 'previous_response_not_found')
        errors.push(`Expected previous_response_not_found after reconnecting a store:false chain but got ${code}`);
      if (recovery === undefined) errors.push('Recovery WebSocket turn did not run after reconnect miss');
      else errors.push(...checkResponse(recovery.final, [], recovery));
      return errors;
    },
  },
  {
    id: 'websocket-previous-response-not-found',
    name: 'WebSocket Missing Previous Response',
    run: async (c) => {
      const [turn] = await wsSession(c, [
        wsCreate(c, {
          store: false,
          previous_response_id: `resp_openresponses_missing_${process.hrtime.bigint()}`,
          input: 'This should fail because the previous response is missing.',
        }),
      ]);
      const code = turnErrorCode(turn);
      return code === 'previous_response_not_found'
        ? turn.errors
        : [`Expected previous_response_not_found but got ${code}`, ...turn.errors];
    },
  },
  {
    id: 'websocket-failed-continuation-evicts-cache',
    name: 'WebSocket Failed Continuation Evicts Cache',
    run: async (c) => {
      const [first, failed, retry] = await wsSession(c, [
        wsCreate(c, { store: false, input: 'Remember the code word: ember. Reply with OK.' }),
        (prev) =>
          wsCreate(c, {
            store: false,
            previous_response_id: prev[0]?.final?.id,
            input: [
              {
                type: 'function_call_output',
                call_id: 'call_openresponses_missing',
                output: 'No matching tool call exists in the previous response.',
              },
            ],
          }),
        (prev) =>
          wsCreate(c, {
            store: false,
            previous_response_id: prev[0]?.final?.id,
            input: 'Try to continue after the failed turn. Reply with exactly: stale',
          }),
      ]);
      const errors = [...first.errors, ...issues(validators.response, first.final)];
      const failedTurn =
        failed !== undefined &&
        (failed.events.some((e) => e.type === 'error') ||
          turnErrorCode(failed) !== null ||
          failed.final?.status === 'failed');
      if (failed === undefined) errors.push('Failed WebSocket continuation turn did not run');
      else if (!failedTurn)
        errors.push(
          ...failed.errors,
          `Expected second WebSocket continuation turn to fail but got status ${String(failed.final?.status ?? 'no terminal response')}`,
        );
      if (retry === undefined) errors.push('Retry WebSocket continuation turn did not run');
      else {
        errors.push(...retry.errors);
        const code = turnErrorCode(retry);
        if (code !== 'previous_response_not_found')
          errors.push(`Expected previous_response_not_found after failed continuation eviction but got ${code}`);
      }
      return errors;
    },
  },
  {
    id: 'websocket-compact-new-chain',
    name: 'WebSocket Compact New Chain',
    run: async (c) => {
      const compactRequest = {
        model: c.model,
        input: [
          msg('user', [{ type: 'input_text', text: 'Remember the compaction code word: slate.' }]),
          msg('assistant', [{ type: 'output_text', text: 'OK.' }]),
          msg('user', [{ type: 'input_text', text: 'Compress this conversation for later continuation.' }]),
        ],
      };
      const res = await post(c, '/responses/compact', compactRequest);
      const body = (await res.json()) as Json;
      if (!res.ok) return [`HTTP ${res.status} from /responses/compact: ${JSON.stringify(body)}`];
      if (!Array.isArray(body.output)) return ['Compaction response did not include an output array'];
      const [turn] = await wsSession(c, [
        wsCreate(c, {
          store: false,
          input: [...body.output, msg('user', 'Continue from here. Reply with exactly: compacted')],
          tools: [],
        }),
      ]);
      return checkResponse(turn.final, [streamingEvents, streamingSchema, completedStatus], turn);
    },
  },
  {
    id: 'system-prompt',
    name: 'System Prompt',
    request: systemPrompt,
    run: (c) => httpCase(c, systemPrompt(c), [hasOutput, completedStatus]),
  },
  {
    id: 'tool-calling',
    name: 'Tool Calling',
    request: toolCall,
    run: (c) => httpCase(c, toolCall(c), [hasOutput, hasOutputType('function_call')]),
  },
  {
    id: 'tool-calling-streaming',
    name: 'Tool Calling (Streaming)',
    request: (c) => ({ ...toolCall(c), stream: true }),
    run: (c) => httpCase(c, toolCall(c), [streamingEvents, streamingSchema, functionCallEvents], true),
  },
  {
    id: 'function-call-roundtrip',
    name: 'Function Call Round Trip',
    request: forcedToolCall,
    run: async (c) => {
      const first = await firstTurn(c, forcedToolCall(c));
      if (first.errors.length > 0) return first.errors;
      const call = (first.response?.output as Json[]).find((i) => i.type === 'function_call');
      if (call === undefined || typeof call.call_id !== 'string')
        return ['First response did not include a function_call with call_id'];
      return httpCase(
        c,
        {
          model: c.model,
          previous_response_id: first.response?.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: '64 degrees and clear' }],
        },
        [hasOutput, completedStatus],
      );
    },
  },
  {
    id: 'image-input',
    name: 'Image Input',
    request: imageInput,
    run: (c) => httpCase(c, imageInput(c), [hasOutput, completedStatus]),
  },
  {
    id: 'file-input',
    name: 'File Input',
    request: fileInput,
    run: (c) => httpCase(c, fileInput(c), [hasOutput, completedStatus]),
  },
  {
    id: 'multi-turn',
    name: 'Multi-turn Conversation',
    request: multiTurn,
    run: (c) => httpCase(c, multiTurn(c), [hasOutput, completedStatus]),
  },
  {
    id: 'previous-response-id',
    name: 'Previous Response ID',
    run: async (c) => {
      const first = await firstTurn(c, {
        model: c.model,
        input: 'Remember this code word: papaya. Reply with only OK.',
      });
      if (first.errors.length > 0) return first.errors;
      return httpCase(
        c,
        {
          model: c.model,
          previous_response_id: first.response?.id,
          input: 'What code word did I ask you to remember?',
        },
        [hasOutput, completedStatus],
      );
    },
  },
  {
    id: 'compact-response',
    name: 'Compaction Endpoint',
    endpoint: '/responses/compact',
    request: compactRequest,
    run: async (c) => {
      const res = await post(c, '/responses/compact', compactRequest(c));
      if (res.status !== 200) return [`HTTP ${res.status}: ${await res.text()}`];
      const body = (await res.json()) as Json;
      const schema = issues(validators.compact, body);
      if (schema.length > 0) return schema;
      return [hasOutput, compactObject, hasOutputType('compaction')].flatMap((v) => v(body));
    },
  },
  {
    id: 'compact-missing-model',
    name: 'Compaction Missing Required Model',
    run: async (c) => {
      const res = await post(c, '/responses/compact', { input: [msg('user', 'Compact this conversation.')] });
      await res.arrayBuffer();
      return [400, 422].includes(res.status) ? [] : [`HTTP ${res.status}: expected 400 or 422`];
    },
  },
  {
    id: 'file-search',
    name: 'File Search',
    skippedBySuite: 'File search is optional and skipped until its required configuration is provided.',
    request: (c) => ({
      model: c.model,
      input: 'Search the configured vector store for relevant content and summarize one result.',
      tools: [{ type: 'file_search', vector_store_ids: [c.fileSearchVectorStoreId ?? ''] }],
      tool_choice: { type: 'file_search' },
      include: ['file_search_call.results'],
    }),
    run: async () => [],
  },
  {
    id: 'offline-web-search',
    name: 'Offline Web Search',
    skippedBySuite: 'Offline web search is optional and skipped until its required configuration is provided.',
    request: (c) => ({
      model: c.model,
      input: 'Find the most relevant cached result for OpenResponses.',
      tools: [{ type: 'web_search', external_web_access: false }],
      tool_choice: { type: 'web_search' },
      include: ['web_search_call.action.sources'],
    }),
    run: async () => [],
  },
];

/** Runs one case; a thrown error is a failure, as in the suite. */
export async function runCase(c: SuiteCase, config: SuiteConfig): Promise<CaseResult> {
  if (c.skippedBySuite !== undefined) return { status: 'skipped', errors: [c.skippedBySuite] };
  try {
    const errors = await c.run(config);
    return { status: errors.length === 0 ? 'passed' : 'failed', errors };
  } catch (error) {
    return { status: 'failed', errors: [error instanceof Error ? error.message : String(error)] };
  }
}
