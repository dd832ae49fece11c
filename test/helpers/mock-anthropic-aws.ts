// A Claude Platform on AWS stand-in: Anthropic's Messages API (`POST /v1/messages`, JSON or SSE) that, like
// the service, refuses a request without the workspace header it was made for or without a valid
// credential: a SigV4 signature (service `aws-external-anthropic`) that MOCK_AWS_CREDENTIALS reproduce, or
// the workspace API key as a Bearer token.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awsCaller } from './mock-aws-auth.ts';

export const MOCK_WORKSPACE_ID = 'wrkspc_01mockawsworkspace';
export const MOCK_ANTHROPIC_AWS_KEY = 'sk-ant-aws-mock-workspace-key';

export interface AnthropicAwsCall {
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
  readonly auth: 'sigv4' | 'bearer';
}

export interface MockAnthropicAws {
  readonly url: string;
  readonly calls: AnthropicAwsCall[];
  /** Requests refused for a missing credential or workspace. */
  readonly refused: number;
  close(): Promise<void>;
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

export async function startMockAnthropicAws(opts: { region?: string; text?: string } = {}): Promise<MockAnthropicAws> {
  const region = opts.region ?? 'us-west-2';
  const text = opts.text ?? 'Hello from Claude Platform on AWS';
  const calls: AnthropicAwsCall[] = [];
  let refused = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const caller = await awsCaller(req, raw, {
      region,
      service: 'aws-external-anthropic',
      apiKey: MOCK_ANTHROPIC_AWS_KEY,
    });
    const bearer = caller === 'bearer';
    const error = (status: number, type: string, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type, message } }));
    };
    if (caller === null) {
      refused++;
      error(401, 'authentication_error', 'invalid credentials');
      return;
    }
    if (req.headers['anthropic-workspace-id'] !== MOCK_WORKSPACE_ID) {
      refused++;
      error(400, 'invalid_request_error', 'anthropic-workspace-id header is required');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      error(404, 'not_found_error', 'Not found');
      return;
    }
    const body = JSON.parse(raw) as Record<string, unknown>;
    calls.push({ body, headers: req.headers, auth: bearer ? 'bearer' : 'sigv4' });
    const message = {
      id: 'msg_aws_01',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 6 },
    };
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      sse([
        {
          type: 'message_start',
          message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } },
        { type: 'message_stop' },
      ]),
    );
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
