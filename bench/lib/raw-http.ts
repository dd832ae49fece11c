// Just enough HTTP/1.1 for a latency client on raw sockets: the request as one buffer (one write, as
// wrk sends it), where a response ends (content-length or chunked), and a keep-alive connection that
// carries one request at a time. No parser objects, no events per
// header: the client's own cost stays small and steady next to what it measures.
import { connect, type Socket } from 'node:net';
import type { LoadRequest } from './load.ts';

export function requestBytes(request: LoadRequest): Buffer {
  const url = new URL(request.url);
  const body = request.method === 'POST' ? Buffer.from(request.body) : Buffer.alloc(0);
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.method === 'POST') lines.push(`content-length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The status and total length of the first response in `buf`, or null while it is incomplete. */
export function responseEnd(buf: Buffer): { status: number; length: number } | null {
  const head = buf.indexOf(HEAD_END);
  if (head === -1) return null;
  const headText = buf.toString('latin1', 0, head);
  const status = Number(headText.slice(9, 12));
  const bodyStart = head + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
  if (length !== null) {
    const end = bodyStart + Number(length[1]);
    return buf.length >= end ? { status, length: end } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(headText)) {
    // Chunk sizes are hex lines; walking them finds the terminating zero-size chunk exactly.
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd === -1) return null;
      const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) return { status: 0, length: buf.length };
      if (size === 0) {
        // "0\r\n" then the empty line that ends the (trailer-less) body.
        const end = lineEnd + 4;
        return buf.length >= end ? { status, length: end } : null;
      }
      at = lineEnd + 2 + size + 2;
      if (at > buf.length) return null;
    }
  }
  // No length and not chunked: 1xx/204/304 have no body; anything else is not something we measure.
  return { status, length: bodyStart };
}

/** A response's status and head (status line and headers, latin1). */
export interface RawAnswer {
  status: number;
  head: string;
}

const CLOSE = /\r\nconnection:\s*close/i;

/**
 * One keep-alive connection carrying one request at a time: opened on the first send, and again on the
 * send after the server closed it.
 */
export class RawConnection {
  readonly #url: URL;
  readonly #bytes: Buffer;
  #socket: Socket | null = null;
  #buf: Buffer = Buffer.alloc(0);
  #settle: ((answer: RawAnswer | Error) => void) | null = null;

  /** `bytes`: the whole request, as requestBytes renders it. */
  constructor(url: URL, bytes: Buffer) {
    this.#url = url;
    this.#bytes = bytes;
  }

  /** Sends the request; resolves with the answer, or with the error that ended the connection first. */
  send(): Promise<RawAnswer | Error> {
    return new Promise((resolve) => {
      this.#settle = resolve;
      this.#open().write(this.#bytes);
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  #open(): Socket {
    if (this.#socket !== null) return this.#socket;
    const socket = connect({ host: this.#url.hostname, port: Number(this.#url.port), noDelay: true });
    this.#socket = socket;
    this.#buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    const closed = (error?: Error): void => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      const settle = this.#settle;
      this.#settle = null;
      settle?.(error ?? new Error('the server closed the connection'));
    };
    socket.on('error', closed);
    socket.on('close', () => closed());
    return socket;
  }

  #read(chunk: Buffer): void {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const end = responseEnd(this.#buf);
    if (end === null) return;
    const head = this.#buf.toString('latin1', 0, Math.min(end.length, this.#buf.indexOf(HEAD_END)));
    this.#buf = this.#buf.subarray(end.length);
    if (CLOSE.test(head)) this.close();
    const settle = this.#settle;
    this.#settle = null;
    settle?.({ status: end.status, head });
  }
}
