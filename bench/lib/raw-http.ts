// Just enough HTTP/1.1 for a latency client on one raw socket: the request as one buffer (one write, as
// wrk sends it), and where a response ends (content-length or chunked). No parser objects, no events per
// header: the client's own cost stays small and steady next to what it measures.
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
