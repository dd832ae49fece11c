// TLS on the gateway's port: a tls.Server takes the connections, offers HTTP/2 and HTTP/1.1 by ALPN, and
// hands each decrypted socket to the gateway's own node:http server, whose connection handler already
// tells HTTP/2 from HTTP/1.1 by the first bytes (http2.ts). Requests, limits, upgrades and the connection
// guard are the same as over plain HTTP. The node:http server itself listens on a loopback port of its own,
// which only the gateway's own calls to itself use (the Responses WebSocket bridge).
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** The TLS server for `server`, not yet listening; `server.close()` closes it too. */
export function tlsFront(server: Server, files: TlsFiles): TlsServer {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = readFileSync(files.certFile);
    key = readFileSync(files.keyFile);
  } catch (err) {
    throw new Error(`listen.tls: cannot read the certificate or key (${(err as Error).message})`);
  }
  const front = createTlsServer({ cert, key, ALPNProtocols: ['h2', 'http/1.1'] }, (socket: TLSSocket) => {
    server.emit('connection', socket);
  });
  // A failed handshake is the client's alone: its socket is closed, nothing else is affected.
  front.on('tlsClientError', (_err, socket) => socket.destroy());
  const close = server.close;
  server.close = function closeWithTls(this: Server, callback?: (err?: Error) => void) {
    front.close();
    return close.call(this, callback);
  };
  return front;
}
