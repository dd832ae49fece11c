// A mock upstream that signs its reasoning and checks the signatures it gets back, as Anthropic and Gemini
// do: POST /v1/messages answers a first turn with a signed thinking block and a tool call, and refuses a
// later turn whose thinking blocks carry a signature it did not issue for that text (400, Anthropic's
// words; with thinking on, a tool result must follow a turn that thought); POST /v1beta/models/{model}:generateContent / :streamGenerateContent answers with a signed
// thought and a signed function call, and refuses a later turn whose function call lacks the signature
// it issued (400, Gemini's words). Every request is recorded with its raw bytes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface SignedRequest {
  path: string;
  body: Buffer;
  json: Json;
  /** The status the mock answered with. */
  status: number;
}

export interface SigningUpstream {
  url: string;
  requests: SignedRequest[];
  /** Every signature issued, with the text it signs ('' for a function call's). */
  issued: Map<string, string>;
  close(): Promise<void>;
}

export const THINKING_TEXT = 'The user asks about Paris.\n\n  I will call get_weather. ';

function signature(): string {
  return randomBytes(48).toString('base64');
}

function sse(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const f of frames) res.write(f);
  res.end();
}

function refuse(res: ServerResponse, status: number, body: Json): number {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return status;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function anthropic(req: Json, res: ServerResponse, issued: Map<string, string>): number {
  const messages = (req.messages ?? []) as Json[];
  const last = messages.at(-1);
  const answering = Array.isArray(last?.content) && last.content.some((b) => isObject(b) && b.type === 'tool_result');
  // Anthropic checks every thinking block sent back against the signature it issued for that text.
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Json[]) {
      if (b.type !== 'thinking') continue;
      if (issued.get(String(b.signature)) !== b.thinking)
        return refuse(res, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'messages.1.content.0: Invalid `signature` in `thinking` block',
          },
        });
    }
  }
  const thinkingOn = isObject(req.thinking) && req.thinking.type === 'enabled';
  if (answering && thinkingOn) {
    const turn = messages.at(-2);
    const thought = Array.isArray(turn?.content) && turn.content.some((b) => isObject(b) && b.type === 'thinking');
    if (!thought)
      return refuse(res, 400, {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Expected `thinking` or `redacted_thinking`, but found `tool_use`.',
        },
      });
  }
  const sig = signature();
  issued.set(sig, THINKING_TEXT);
  const id = `toolu_${randomBytes(6).toString('hex')}`;
  // A tool result is answered with another call while the conversation has fewer results than asked for
  // (metadata.user_id `tool-turns:N`, default 1): a long agent loop.
  const results = messages.filter(
    (m) => Array.isArray(m.content) && m.content.some((b) => isObject(b) && b.type === 'tool_result'),
  ).length;
  const wanted = /tool-turns:(\d+)/.exec(String((req.metadata as Json | undefined)?.user_id ?? ''));
  const done = answering && results >= (wanted === null ? 1 : Number(wanted[1]));
  const content: Json[] = done
    ? [{ type: 'text', text: 'It is sunny in Paris.' }]
    : [
        { type: 'thinking', thinking: THINKING_TEXT, signature: sig },
        { type: 'tool_use', id, name: 'get_weather', input: { city: 'Paris' } },
      ];
  const stopReason = done ? 'end_turn' : 'tool_use';
  const usage = { input_tokens: 30, output_tokens: 20 };
  if (req.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_mock',
        type: 'message',
        role: 'assistant',
        model: req.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    );
    return 200;
  }
  const ev = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    ev('message_start', {
      message: {
        id: 'msg_mock',
        type: 'message',
        role: 'assistant',
        model: req.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 1 },
      },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      frames.push(
        ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: THINKING_TEXT.slice(0, 10) } }),
        ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: THINKING_TEXT.slice(10) } }),
        ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: sig } }),
      );
    } else if (block.type === 'tool_use') {
      frames.push(
        ev('content_block_start', { index, content_block: { ...block, input: {} } }),
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } }),
      );
    } else {
      frames.push(
        ev('content_block_start', { index, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', { index, delta: { type: 'text_delta', text: String(block.text) } }),
      );
    }
    frames.push(ev('content_block_stop', { index }));
  });
  frames.push(
    ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } }),
    ev('message_stop', {}),
  );
  sse(res, frames);
  return 200;
}

function gemini(req: Json, stream: boolean, res: ServerResponse, issued: Map<string, string>): number {
  const contents = (req.contents ?? []) as Json[];
  const last = contents.at(-1);
  const answering =
    Array.isArray(last?.parts) && last.parts.some((p) => isObject(p) && p.functionResponse !== undefined);
  if (answering) {
    // Gemini 3 checks the current turn's function call: it must carry the signature the model wrote.
    const model = contents.at(-2);
    const call = ((model?.parts ?? []) as Json[]).find((p) => p.functionCall !== undefined);
    const sig = call?.thoughtSignature;
    // Google's documented placeholder passes for a call no Gemini model made.
    const known = typeof sig === 'string' && (issued.get(sig) === '' || sig === 'skip_thought_signature_validator');
    if (!known)
      return refuse(res, 400, {
        error: {
          code: 400,
          message: 'Function call is missing a thought_signature in functionCall parts.',
          status: 'INVALID_ARGUMENT',
        },
      });
  }
  const thoughtSig = signature();
  const callSig = signature();
  issued.set(thoughtSig, THINKING_TEXT);
  issued.set(callSig, '');
  const parts = answering
    ? [{ text: 'It is sunny in Paris.' }]
    : [
        { text: THINKING_TEXT, thought: true, thoughtSignature: thoughtSig },
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: callSig },
      ];
  const reply = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 20, totalTokenCount: 50 },
    modelVersion: 'gemini-3-pro',
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
    return 200;
  }
  // The thought in its own chunk, then the call with the finish, as Gemini streams.
  const chunks = answering
    ? [reply]
    : [
        { candidates: [{ content: { role: 'model', parts: [parts[0]] }, index: 0 }] },
        { ...reply, candidates: [{ ...reply.candidates[0], content: { role: 'model', parts: [parts[1]] } }] },
      ];
  sse(
    res,
    chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
  );
  return 200;
}

export async function startSigningUpstream(): Promise<SigningUpstream> {
  const requests: SignedRequest[] = [];
  const issued = new Map<string, string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = JSON.parse(body.toString('utf8')) as Json;
      const path = (req.url ?? '').split('?')[0];
      const record: SignedRequest = { path, body, json, status: 0 };
      requests.push(record);
      if (path === '/v1/messages') record.status = anthropic(json, res, issued);
      else if (path.startsWith('/v1beta/models/'))
        record.status = gemini(json, path.endsWith(':streamGenerateContent'), res, issued);
      else record.status = refuse(res, 404, { error: { message: `no route ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
