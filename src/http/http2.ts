// HTTP/2 on the gateway's own port, beside HTTP/1.1: the AWS SDK's default request handler (Bedrock
// Runtime's) speaks HTTP/2 with prior knowledge to an http:// endpoint. node:http and node:http2 cannot
// share a listener, so the server's connection handler is wrapped: the first bytes of a connection are
// looked at once; the HTTP/2 client preface (`PRI * HTTP/2.0`, which no HTTP/1.1 request can begin with)
// hands the socket to an HTTP/2 server whose requests take the same handler, anything else goes to
// node:http exactly as before. This costs one look per connection, nothing per HTTP/1.1 request.
import type { Server } from 'node:http';
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';
import type { Socket } from 'node:net';

/** The HTTP/2 connection preface (RFC 9113 §3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** Enough of the preface to tell it from every HTTP/1.1 method (`PRI` is reserved for it). */
const DECIDING = 4;

/** Whether a connection's first bytes are the HTTP/2 preface. */
export function startsHttp2(chunk: Buffer): boolean {
  if (chunk.length < DECIDING) return false;
  const n = Math.min(chunk.length, PREFACE.length);
  return chunk.compare(PREFACE, 0, n, 0, n) === 0;
}

export interface Http2Options {
  /** The server's request handler, called for HTTP/2 streams with the compatibility objects. */
  onRequest: (req: Http2ServerRequest, res: Http2ServerResponse) => void;
  /**
   * A connection that sends nothing for this long is closed: until its first bytes it belongs to neither
   * server, so node:http's own header timeout does not watch it yet.
   */
  firstByteTimeoutMs: number;
}

/**
 * Makes `server` (a node:http server, before any other 'connection' listener is added) also accept
 * HTTP/2 with prior knowledge. Sessions are closed gracefully (GOAWAY) when `server.close()` is called.
 */
export function acceptHttp2(server: Server, opts: Http2Options): void {
  const http1 = server.listeners('connection') as ((socket: Socket) => void)[];
  if (http1.length !== 1) throw new Error('acceptHttp2 must wrap the server before other connection listeners');
  const [nodeHttp] = http1;
  server.removeListener('connection', nodeHttp);
  const h2 = createHttp2Server(opts.onRequest);
  // A client's protocol error closes its own session; nothing else is affected.
  h2.on('sessionError', () => {});
  const sessions = new Set<Http2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // No idle timeout: a non-streamed answer may take minutes without a frame either way; the connection
  // bounds (connection-guard.ts) count HTTP/2 connections as they count HTTP/1.1 ones.
  const { firstByteTimeoutMs } = opts;
  server.on('connection', function sniff(this: Server, socket: Socket) {
    // Until a server takes the socket, its errors (a reset before the first byte) are this code's.
    const dropped = () => socket.destroy();
    socket.on('error', dropped);
    socket.setTimeout(firstByteTimeoutMs, dropped);
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.off('error', dropped);
      // Paused before the chunk goes back, so it waits for whichever parser takes the socket.
      socket.pause();
      socket.unshift(chunk);
      // HTTP/2 takes the chunk back from the socket's buffer itself (as its session starts);
      // node:http reads it once the socket flows again.
      if (startsHttp2(chunk)) h2.emit('connection', socket);
      else {
        nodeHttp.call(server, socket);
        socket.resume();
      }
    });
  });
  // A closing server stops taking requests on HTTP/2 sessions too (GOAWAY; open streams finish): node:http
  // closes its idle connections itself, and the server's 'close' waits for every connection to end.
  const close = server.close;
  server.close = function closeWithSessions(this: Server, callback?: (err?: Error) => void) {
    for (const session of sessions) session.close();
    return close.call(this, callback);
  };
}
