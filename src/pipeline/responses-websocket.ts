// Responses over WebSocket (`GET /v1/responses` upgraded; what Codex's OpenAI provider tries first): the
// key is checked at the upgrade. A `response.create` frame whose deployment's upstream serves the
// WebSocket mode itself goes there over a socket of the gateway's (responses-socket-pass.ts). Every other
// frame is one streamed Responses request through the gateway's own HTTP path (so routing, limits,
// billing and cut connections behave as on HTTP), its events back as one text frame each; on that bridge
// `previous_response_id` naming the connection's last response continues it without a store (Codex sends
// `store: false`), and `generate: false` is a warm-up answered at once, without an upstream call. Errors
// are `{"type":"error","status":…,"error":{…}}` frames.
import type { IncomingMessage, Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { request } from 'undici';
import { WebSocketServer, type WebSocket } from 'ws';
import { authenticate } from '../auth/authenticate.ts';
import { GatewayError } from '../core/errors.ts';
import { isObject, type JsonObject } from '../core/json.ts';
import { pathOf } from '../http/routes.ts';
import { SocketRefusals } from '../upstream/responses-socket.ts';
import type { Gateway } from './gateway.ts';
import { SocketPassThrough } from './responses-socket-pass.ts';

/** The request headers a frame's request carries on (the key, and the client's session names). */
const FORWARDED = ['authorization', 'x-claude-code-session-id', 'session_id', 'conversation_id', 'openai-beta'];

interface SocketServices {
  gw: Gateway;
  selfUrl: () => string;
  /** The providers whose upstream refused the socket (`auto`): asked once per provider. */
  refusals: SocketRefusals;
  /** The open sockets, for a clean stop. */
  open: Set<ResponsesSocket>;
  /** A clean stop began: no new socket. */
  draining: boolean;
}

/** What a clean stop does to the sockets (an upgraded socket is no longer the HTTP server's to close). */
export interface ResponsesSockets {
  /** Each socket closes (1001, going away) once its frames are answered; new upgrades get 503. */
  drain(): void;
}

export function attachResponsesWebSocket(server: Server, o: { gw: Gateway; selfUrl: () => string }): ResponsesSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  const services: SocketServices = { ...o, refusals: new SocketRefusals(), open: new Set(), draining: false };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void upgrade(wss, services, req, socket, head);
  });
  return {
    drain() {
      services.draining = true;
      for (const s of services.open) s.drain();
    },
  };
}

function refuse(socket: Duplex, status: number, error: GatewayError): void {
  const type = status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const body = JSON.stringify({ error: { message: error.message, type, code: error.code, param: null } });
  const reason = status === 401 ? 'Unauthorized' : status === 503 ? 'Service Unavailable' : 'Not Found';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

async function upgrade(
  wss: WebSocketServer,
  o: SocketServices,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => undefined);
  if (pathOf(req.url) !== '/v1/responses') {
    refuse(socket, 404, new GatewayError('not_found', { message: 'WebSocket is served on /v1/responses only.' }));
    return;
  }
  if (o.draining) {
    refuse(socket, 503, new GatewayError('shutting_down', { message: 'The gateway is shutting down; connect again.' }));
    return;
  }
  try {
    await authenticate(req.headers, o.gw.keys, Date.now(), req.socket);
  } catch (err) {
    refuse(socket, 401, err instanceof GatewayError ? err : new GatewayError('invalid_api_key'));
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of FORWARDED) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    const pass = new SocketPassThrough({
      gw: o.gw,
      client: ws,
      headers: req.headers,
      connection: req.socket,
      refusals: o.refusals,
    });
    const open = new ResponsesSocket(ws, { url: o.selfUrl(), headers, pass });
    o.open.add(open);
    ws.on('close', () => o.open.delete(open));
    if (o.draining) open.drain();
  });
}

class ResponsesSocket {
  readonly #ws: WebSocket;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #pass: SocketPassThrough;
  /** One response at a time, in the order the frames came. */
  #queue: Promise<void> = Promise.resolve();
  /** The connection's last response and the conversation up to it, for `previous_response_id`. */
  #last: { id: string; items: unknown[] } | null = null;
  #abort = new AbortController();
  /** Frames received and not yet answered. */
  #pending = 0;
  /** A clean stop: the socket closes once its frames are answered. */
  #draining = false;

  constructor(ws: WebSocket, o: { url: string; headers: Record<string, string>; pass: SocketPassThrough }) {
    this.#ws = ws;
    this.#url = `${o.url}/v1/responses`;
    this.#headers = o.headers;
    this.#pass = o.pass;
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      if (this.#draining) {
        this.#error(503, 'shutting_down', 'The gateway is shutting down; connect again.');
        return;
      }
      this.#pending++;
      this.#queue = this.#queue
        .then(() => this.#frame(text))
        .catch(() => undefined)
        .finally(() => {
          this.#pending--;
          if (this.#draining && this.#pending === 0) this.#goAway();
        });
    });
    const gone = (): void => {
      this.#abort.abort();
      this.#pass.close();
    };
    ws.on('close', gone);
    ws.on('error', gone);
  }

  drain(): void {
    this.#draining = true;
    if (this.#pending === 0) this.#goAway();
  }

  #goAway(): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.close(1001, 'the gateway is shutting down');
  }

  #send(value: unknown): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  #error(status: number, code: string, message: string, param: string | null = null): void {
    this.#send({ type: 'error', status, error: { type: 'invalid_request_error', code, message, param } });
  }

  async #frame(text: string): Promise<void> {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.#error(400, 'invalid_json', 'A frame must be a JSON object.');
      return;
    }
    if (!isObject(frame) || frame.type !== 'response.create') {
      this.#error(400, 'invalid_request', 'Frames are `response.create` objects.', 'type');
      return;
    }
    if (await this.#pass.serve(frame, Buffer.byteLength(text))) return;
    const { type: _type, generate, ...body } = frame;
    if (generate === false) return this.#warmUp(body);
    const input = inputItems(body.input);
    let history: unknown[] = [];
    const continued = typeof body.previous_response_id === 'string' && this.#last?.id === body.previous_response_id;
    if (continued && this.#last !== null) {
      history = this.#last.items;
      delete body.previous_response_id;
      body.input = [...history, ...input];
    }
    body.stream = true;
    const completed = await this.#relay(body, [...history, ...input]);
    // A continuation that fails forgets the response it continued (as OpenAI's WebSocket mode does): the
    // next turn naming it gets previous_response_not_found instead of a chain the failure may have broken.
    if (continued && !completed && this.#last?.id === frame.previous_response_id) this.#last = null;
  }

  /** A warm-up: the connection is ready; no model is called. */
  #warmUp(body: JsonObject): void {
    const id = `resp_${randomBytes(24).toString('hex')}`;
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      model: body.model ?? null,
      output: [],
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    };
    this.#send({ type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } });
    this.#send({ type: 'response.completed', sequence_number: 1, response });
    this.#last = { id, items: this.#last?.items ?? [] };
  }

  /** Relays one request's events; true when it ended in `response.completed`. */
  async #relay(body: JsonObject, items: unknown[]): Promise<boolean> {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(this.#url, {
        method: 'POST',
        headers: this.#headers,
        body: JSON.stringify(body),
        signal: this.#abort.signal,
      });
    } catch (err) {
      if (!this.#abort.signal.aborted)
        this.#error(502, 'upstream_error', `The request did not complete: ${String(err)}`);
      return false;
    }
    if (res.statusCode !== 200) {
      const error = (await res.body.json().catch(() => null)) as { error?: unknown } | null;
      this.#send({ type: 'error', status: res.statusCode, error: error?.error ?? null });
      return false;
    }
    let buffered = '';
    let completed = false;
    for await (const chunk of res.body) {
      buffered += (chunk as Buffer).toString('utf8');
      let end = buffered.indexOf('\n\n');
      while (end !== -1) {
        completed = this.#event(buffered.slice(0, end), items) || completed;
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\n\n');
      }
    }
    if (buffered.trim() !== '') completed = this.#event(buffered, items) || completed;
    return completed;
  }

  /**
   * One SSE event: its data as a frame; a finished response becomes the connection's last one (true then).
   */
  #event(block: string, items: unknown[]): boolean {
    let data = '';
    for (const line of block.split('\n')) if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
    if (data === '' || data === '[DONE]') return false;
    this.#send(data);
    if (!data.includes('"response.completed"')) return false;
    try {
      const ev = JSON.parse(data) as { type?: string; response?: { id?: string; output?: unknown[] } };
      if (ev.type === 'response.completed' && typeof ev.response?.id === 'string') {
        this.#last = { id: ev.response.id, items: [...items, ...(ev.response.output ?? [])] };
        return true;
      }
    } catch {
      // Not an event the chain needs.
    }
    return false;
  }
}

/** Where this process reaches its own listener: a wildcard address is reached on loopback. */
export function loopbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string')
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : [];
}
