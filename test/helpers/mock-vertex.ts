// A Vertex AI stand-in: every request must carry a Bearer token that the local Google token endpoint
// (mock-google-token.ts) issued. It answers Gemini's generateContent and streamGenerateContent (`?alt=sse`)
// and Claude's rawPredict and streamRawPredict (Anthropic's own JSON and SSE, the body holding
// `anthropic_version: "vertex-2023-10-16"` and no `model`), and count-tokens:rawPredict (the model in the
// body). Given a scripted mock upstream (`relayTo`), it checks the same and relays each call to that mock's
// own Gemini or Anthropic path (the model put back in an Anthropic body), so tool calls follow its script.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockGoogleToken } from './mock-google-token.ts';
import type { MockUpstream } from './mock-upstream-types.ts';

export interface VertexCall {
  readonly project: string;
  readonly location: string;
  readonly publisher: string;
  readonly model: string;
  readonly method: string;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
}

export interface MockVertex {
  readonly url: string;
  readonly calls: VertexCall[];
  close(): Promise<void>;
}

const ROUTE =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

export async function startMockVertex(
  google: MockGoogleToken,
  textOrRelay: string | { relayTo: MockUpstream } = 'Hello from Vertex',
): Promise<MockVertex> {
  const text = typeof textOrRelay === 'string' ? textOrRelay : 'Hello from Vertex';
  const relayTo = typeof textOrRelay === 'string' ? null : textOrRelay.relayTo;
  const calls: VertexCall[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (token === undefined || !google.isIssued(token)) {
      json(401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const m = ROUTE.exec(url.pathname);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // A body that is not JSON is read as {}.
    }
    if (m === null) {
      json(404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
      return;
    }
    const [, project, location, publisher, model, method] = m;
    calls.push({ project, location, publisher, model, method, body, headers: req.headers });
    if (publisher === 'anthropic' && model === 'count-tokens' && method === 'rawPredict') {
      if (body.anthropic_version !== 'vertex-2023-10-16' || typeof body.model !== 'string')
        return json(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'count-tokens needs anthropic_version and model' },
        });
      return json(200, { input_tokens: 17 });
    }
    if (relayTo !== null) {
      if (publisher === 'google') {
        const sse = method === 'streamGenerateContent' && url.searchParams.get('alt') === 'sse';
        return relay(relayTo, `/v1beta/models/${model}:${method}${sse ? '?alt=sse' : ''}`, body, {}, res);
      }
      if (body.anthropic_version !== 'vertex-2023-10-16' || 'model' in body)
        return json(400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'anthropic_version: vertex-2023-10-16 is required; model is not allowed',
          },
        });
      const { anthropic_version: _, ...rest } = body;
      const beta = req.headers['anthropic-beta'];
      return relay(
        relayTo,
        '/v1/messages',
        { model, ...rest, ...(method === 'streamRawPredict' ? { stream: true } : {}) },
        { 'anthropic-version': '2023-06-01', ...(typeof beta === 'string' ? { 'anthropic-beta': beta } : {}) },
        res,
      );
    }
    const geminiChunk = (t: string, last: boolean) => ({
      candidates: [
        { content: { role: 'model', parts: [{ text: t }] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
      ],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 },
      modelVersion: model,
    });
    if (publisher === 'google' && method === 'generateContent') return json(200, geminiChunk(text, true));
    if (publisher === 'google' && method === 'streamGenerateContent' && url.searchParams.get('alt') === 'sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(geminiChunk(text.slice(0, 5), false))}\r\n\r\n`);
      res.end(`data: ${JSON.stringify(geminiChunk(text.slice(5), true))}\r\n\r\n`);
      return;
    }
    if (publisher === 'anthropic' && (method === 'rawPredict' || method === 'streamRawPredict')) {
      if (body.anthropic_version !== 'vertex-2023-10-16' || 'model' in body)
        return json(400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'anthropic_version: vertex-2023-10-16 is required; model is not allowed',
          },
        });
      const message = {
        id: 'msg_vrtx_01',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      };
      if (method === 'rawPredict')
        return json(200, {
          ...message,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 9, output_tokens: 3 },
        });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events: Array<[string, unknown]> = [
        ['message_start', { type: 'message_start', message }],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 3 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ];
      res.end(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(''));
      return;
    }
    json(404, { error: { code: 404, message: `Unknown method ${method}`, status: 'NOT_FOUND' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The call to the scripted mock's own path; its answer relayed as it comes. */
function relay(
  upstream: MockUpstream,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  res: import('node:http').ServerResponse,
): void {
  const text = JSON.stringify(body);
  const out = httpRequest(
    new URL(path, upstream.url),
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  out.end(text);
}
