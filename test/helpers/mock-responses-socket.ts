// An upstream that serves the Responses API over WebSocket as OpenAI's does (`GET /v1/responses` upgraded,
// `response.create` frames in, one event a frame out, `previous_response_id` known within its connection
// only, `generate: false` a warm-up without output), recording the upgrades' headers and the frames it got.
// It can refuse the upgrade with a status, or hold a response after its first deltas (a caller that leaves
// then closes this socket: `closed` tells).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';

export interface MockSocketUpstream {
  /** `http://127.0.0.1:port`: the provider's base URL is this plus `/v1`. */
  url: string;
  /** Every upgrade asked for, refused ones too. */
  upgrades: IncomingHttpHeaders[];
  /** Every frame received, parsed, in order. */
  frames: Record<string, unknown>[];
  /** Sockets that closed (the gateway let go of them). */
  closed: number;
  /** Resolves when the next socket closes. */
  nextClose(): Promise<void>;
  /** The next upgrades are answered with this HTTP status (null: accepted). */
  refuseWith(status: number | null): void;
  /** The next responses stop after this many deltas and wait (null: whole). */
  holdAfter(deltas: number | null): void;
  /** The next response stops after this many deltas and its socket is dropped. */
  dropAfter(deltas: number): void;
  /** Usage the next responses report. */
  usage: { input_tokens: number; output_tokens: number };
  close(): Promise<void>;
}

export async function startMockSocketUpstream(): Promise<MockSocketUpstream> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true });
  let refuse: number | null = null;
  let hold: number | null = null;
  let drop = false;
  const closes: (() => void)[] = [];
  const up: MockSocketUpstream = {
    url: '',
    upgrades: [],
    frames: [],
    closed: 0,
    nextClose: () => new Promise<void>((resolve) => closes.push(resolve)),
    refuseWith: (status) => {
      refuse = status;
    },
    holdAfter: (deltas) => {
      hold = deltas;
    },
    dropAfter: (deltas) => {
      hold = deltas;
      drop = true;
    },
    usage: { input_tokens: 1200, output_tokens: 34 },
    close: async () => {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('upgrade', (req, socket, head) => {
    up.upgrades.push(req.headers);
    if (refuse !== null || req.url !== '/v1/responses') {
      const status = refuse ?? 404;
      socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    const held = (): { deltas: number | null; drop: boolean } => {
      const now = { deltas: hold, drop };
      if (drop) {
        hold = null;
        drop = false;
      }
      return now;
    };
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, up, held, closes));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return up;
}

function serve(
  ws: WebSocket,
  up: MockSocketUpstream,
  hold: () => { deltas: number | null; drop: boolean },
  closes: (() => void)[],
): void {
  /** Responses this connection produced: what `previous_response_id` may name here. */
  const known = new Set<string>();
  ws.on('close', () => {
    up.closed++;
    for (const c of closes.splice(0)) c();
  });
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    up.frames.push(frame);
    let seq = 0;
    const send = (type: string, fields: object): void => {
      ws.send(JSON.stringify({ type, sequence_number: seq++, ...fields }));
    };
    const previous = frame.previous_response_id;
    if (typeof previous === 'string' && !known.has(previous)) {
      send('error', {
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'previous_response_not_found',
          message: `Previous response with id '${previous}' not found.`,
          param: 'previous_response_id',
        },
      });
      return;
    }
    const id = `resp_${randomUUID().replaceAll('-', '')}`;
    known.add(id);
    const warmUp = frame.generate === false;
    const usage = warmUp
      ? { input_tokens: 0, output_tokens: 0, total_tokens: 0 }
      : { ...up.usage, total_tokens: up.usage.input_tokens + up.usage.output_tokens };
    const response = (status: string, output: unknown[]) => ({
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      model: frame.model,
      output,
      previous_response_id: previous ?? null,
      usage: status === 'completed' ? usage : null,
    });
    send('response.created', { response: response('in_progress', []) });
    if (warmUp) {
      send('response.completed', { response: response('completed', []) });
      return;
    }
    const itemId = `msg_${id.slice(5)}`;
    const pieces = ['Hello', ' over', ' the', ' socket.'];
    const text = pieces.join('');
    const at = { item_id: itemId, output_index: 0, content_index: 0 };
    const item = (status: string, content: unknown[]) => ({
      id: itemId,
      type: 'message',
      role: 'assistant',
      status,
      content,
    });
    const part = (partText: string) => ({ type: 'output_text', text: partText, annotations: [], logprobs: [] });
    send('response.in_progress', { response: response('in_progress', []) });
    send('response.output_item.added', { output_index: 0, item: item('in_progress', []) });
    send('response.content_part.added', { ...at, part: part('') });
    const held = hold();
    pieces.forEach((delta, i) => {
      if (held.deltas !== null && i >= held.deltas) return;
      send('response.output_text.delta', { ...at, delta, logprobs: [] });
    });
    if (held.drop) ws.terminate();
    if (held.deltas !== null) return;
    send('response.output_text.done', { ...at, text, logprobs: [] });
    send('response.content_part.done', { ...at, part: part(text) });
    send('response.output_item.done', { output_index: 0, item: item('completed', [part(text)]) });
    send('response.completed', { response: response('completed', [item('completed', [part(text)])]) });
  });
}
