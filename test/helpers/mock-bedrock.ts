// A Bedrock Runtime stand-in that behaves like the cloud: every request must carry a SigV4 signature that
// the known test credentials reproduce (recomputed with @smithy/signature-v4 over the method, path,
// signed headers and body, at the request's own x-amz-date), or a Bedrock API key as a Bearer token.
// It answers Converse and ConverseStream, and InvokeModel and InvokeModelWithResponseStream for Anthropic
// bodies, in the real framing (JSON; `application/vnd.amazon.eventstream` with base64 `chunk` events).
// A model id containing `throttle` answers ThrottlingException, one containing `invalid` a
// ValidationException, one containing `notready` a ModelNotReadyException; an InvokeModelWithResponseStream
// to one containing `midstream` sends its first events, then a `throttlingException` message. An InvokeModel body with tools
// whose last message is the user's text is answered with a call of its first tool (`{"city":"Oslo"}`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awsCaller } from './mock-aws-auth.ts';

export { MOCK_AWS_CREDENTIALS, verifySigV4 } from './mock-aws-auth.ts';
import { encodeChunk, encodeEvent, encodeException } from '../../src/providers/aws/event-stream.ts';

export const MOCK_BEDROCK_API_KEY = 'ABSKmockbedrockapikey';

export interface BedrockCall {
  readonly path: string;
  readonly model: string;
  readonly operation: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
  readonly auth: 'sigv4' | 'bearer';
}

export interface MockBedrock {
  readonly url: string;
  readonly calls: BedrockCall[];
  /** Requests refused for a missing or wrong signature. */
  readonly refused: number;
  close(): Promise<void>;
}

export interface MockBedrockOptions {
  region?: string;
  /** The reply's text. */
  text?: string;
}

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/** The tool call an InvokeModel body asks for: its first tool, when its last message is the user's text. */
function invokeToolCall(
  body: Record<string, unknown>,
): { type: 'tool_use'; id: string; name: string; input: unknown } | null {
  const tools = body.tools;
  const messages = body.messages;
  if (!Array.isArray(tools) || tools.length === 0 || !Array.isArray(messages)) return null;
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined;
  const content = last?.content;
  const answered = Array.isArray(content) && content.some((b) => (b as { type?: unknown }).type === 'tool_result');
  if (last?.role !== 'user' || answered) return null;
  return {
    type: 'tool_use',
    id: 'toolu_bdrk_01',
    name: String((tools[0] as { name?: unknown }).name),
    input: { city: 'Oslo' },
  };
}

/** The toolUse a Converse body asks for: its first tool, when its last turn is the user's text. */
function converseToolUse(body: Record<string, unknown>): { toolUseId: string; name: string; input: unknown } | null {
  const tools = (body.toolConfig as { tools?: unknown } | undefined)?.tools;
  const messages = body.messages;
  if (!Array.isArray(tools) || tools.length === 0 || !Array.isArray(messages)) return null;
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined;
  const content = last?.content;
  const answered =
    Array.isArray(content) && content.some((b) => typeof b === 'object' && b !== null && 'toolResult' in b);
  if (last?.role !== 'user' || answered) return null;
  const spec = (tools[0] as { toolSpec?: { name?: unknown } }).toolSpec;
  return { toolUseId: 'tooluse_bdrk_01', name: String(spec?.name), input: { city: 'Oslo' } };
}

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ message }));
}

export async function startMockBedrock(opts: MockBedrockOptions = {}): Promise<MockBedrock> {
  const region = opts.region ?? 'us-east-1';
  const text = opts.text ?? 'Hello from Bedrock';
  const calls: BedrockCall[] = [];
  let refused = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const caller = await awsCaller(req, raw, { region, service: 'bedrock', apiKey: MOCK_BEDROCK_API_KEY });
    const bearer = caller === 'bearer';
    if (caller === null) {
      refused++;
      awsError(
        res,
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
      );
      return;
    }
    const route = ROUTE.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (route === null || req.method !== 'POST') {
      awsError(res, 404, 'UnknownOperationException', 'Unknown operation');
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      awsError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
      return;
    }
    const model = decodeURIComponent(route[1]);
    const operation = route[2] as BedrockCall['operation'];
    calls.push({
      path: req.url ?? '',
      model,
      operation,
      body,
      headers: req.headers,
      auth: bearer ? 'bearer' : 'sigv4',
    });
    if (model.includes('throttle')) {
      awsError(res, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
      return;
    }
    if (model.includes('invalid')) {
      awsError(res, 400, 'ValidationException', 'messages.0.content: text content blocks must be non-empty');
      return;
    }
    if (model.includes('notready')) {
      awsError(res, 429, 'ModelNotReadyException', 'Model is not ready to serve inference requests.');
      return;
    }
    if (operation === 'invoke' || operation === 'invoke-with-response-stream') {
      if (body.anthropic_version !== 'bedrock-2023-05-31' || 'model' in body) {
        awsError(
          res,
          400,
          'ValidationException',
          'anthropic_version: bedrock-2023-05-31 is required and model is not allowed',
        );
        return;
      }
    }
    const usage = { inputTokens: 11, outputTokens: 4, totalTokens: 15 };
    const toolCall = invokeToolCall(body);
    const toolUse = converseToolUse(body);
    switch (operation) {
      case 'converse':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            output: { message: { role: 'assistant', content: toolUse === null ? [{ text }] : [{ toolUse }] } },
            stopReason: toolUse === null ? 'end_turn' : 'tool_use',
            usage,
            metrics: { latencyMs: 5 },
          }),
        );
        return;
      case 'converse-stream':
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        res.write(encodeEvent('messageStart', { role: 'assistant' }));
        if (toolUse === null)
          for (const piece of [text.slice(0, 5), text.slice(5)])
            res.write(encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }));
        else {
          const start = { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } };
          res.write(encodeEvent('contentBlockStart', { contentBlockIndex: 0, start }));
          const input = JSON.stringify(toolUse.input);
          res.write(encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input } } }));
        }
        res.write(encodeEvent('contentBlockStop', { contentBlockIndex: 0 }));
        res.write(encodeEvent('messageStop', { stopReason: toolUse === null ? 'end_turn' : 'tool_use' }));
        res.end(encodeEvent('metadata', { usage, metrics: { latencyMs: 5 } }));
        return;
      case 'invoke':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'msg_bdrk_01',
            type: 'message',
            role: 'assistant',
            model,
            content: toolCall === null ? [{ type: 'text', text }] : [toolCall],
            stop_reason: toolCall === null ? 'end_turn' : 'tool_use',
            stop_sequence: null,
            usage: { input_tokens: 11, output_tokens: 4 },
          }),
        );
        return;
      case 'invoke-with-response-stream': {
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        const events = [
          {
            type: 'message_start',
            message: {
              id: 'msg_bdrk_02',
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: null,
              usage: { input_tokens: 11, output_tokens: 1 },
            },
          },
          ...(toolCall === null
            ? [
                { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
                { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
              ]
            : [
                { type: 'content_block_start', index: 0, content_block: { ...toolCall, input: {} } },
                {
                  type: 'content_block_delta',
                  index: 0,
                  delta: { type: 'input_json_delta', partial_json: JSON.stringify(toolCall.input) },
                },
              ]),
          { type: 'content_block_stop', index: 0 },
          {
            type: 'message_delta',
            delta: { stop_reason: toolCall === null ? 'end_turn' : 'tool_use', stop_sequence: null },
            usage: { output_tokens: 4 },
          },
          { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 11, outputTokenCount: 4 } },
        ];
        if (model.includes('midstream')) {
          // As Bedrock does when a quota runs out mid-answer: some chunks, then an exception message.
          for (const e of events.slice(0, 3)) res.write(encodeChunk(JSON.stringify(e)));
          res.end(encodeException('throttlingException', 'Too many tokens, please wait before trying again.'));
          return;
        }
        for (const e of events) res.write(encodeChunk(JSON.stringify(e)));
        res.end();
        return;
      }
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    get refused() {
      return refused;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
