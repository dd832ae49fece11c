// The stream writer on a real node:http server, read by a raw socket so the wire bytes themselves are
// checked: HTTP/1.1 chunk framing, HTTP/1.0 (no framing), pipelined responses, backpressure, keep-alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { StreamWriter } from '../../src/http/stream-writer.ts';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

async function serve(handler: Handler): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    void handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Sends raw request bytes and collects everything the server sends until `done(bytes)` or the close. */
async function raw(port: number, request: string, done: (got: Buffer) => boolean = () => false): Promise<Buffer> {
  const socket = net.connect(port, '127.0.0.1');
  const parts: Buffer[] = [];
  const finished = new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      parts.push(d);
      if (done(Buffer.concat(parts))) resolve();
    });
    socket.on('end', () => resolve());
    socket.on('error', reject);
  });
  socket.write(request);
  await finished;
  socket.destroy();
  return Buffer.concat(parts);
}

/** Splits one chunked HTTP/1.1 response at `from`: its head, each chunk's bytes, and where it ended. */
function chunked(bytes: Buffer, from = 0): { head: string; chunks: Buffer[]; end: number } {
  const headEnd = bytes.indexOf('\r\n\r\n', from);
  assert.ok(headEnd !== -1, 'a complete head');
  const head = bytes.subarray(from, headEnd).toString('latin1');
  const chunks: Buffer[] = [];
  let at = headEnd + 4;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    assert.ok(lineEnd !== -1, 'a chunk-size line');
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    assert.ok(Number.isInteger(size), 'a hexadecimal chunk size');
    at = lineEnd + 2;
    if (size === 0) {
      assert.equal(bytes.subarray(at, at + 2).toString('latin1'), '\r\n', 'the last chunk and an empty trailer');
      return { head, chunks, end: at + 2 };
    }
    chunks.push(bytes.subarray(at, at + size));
    assert.equal(bytes.subarray(at + size, at + size + 2).toString('latin1'), '\r\n', 'each chunk ends with CRLF');
    at += size + 2;
  }
}

const endsResponse = (n: number) => (got: Buffer) => got.toString('latin1').split('\r\n0\r\n\r\n').length > n;

test('bytes and UTF-8 text go out as HTTP/1.1 chunks, byte for byte', async () => {
  const bytes = Buffer.from('data: {"t":"héllo €"}\n\n');
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    writer.write('data: first\n\n');
    writer.write(bytes);
    writer.write(new Uint8Array(bytes.subarray(0, 6)));
    writer.write('data: {"t":"ü"}\n\n');
    writer.write('');
    writer.end('data: [DONE]\n\n');
    writer.dispose();
  });
  try {
    const got = await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n', endsResponse(1));
    const { head, chunks } = chunked(got);
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(head, /transfer-encoding: chunked/i);
    assert.deepEqual(
      chunks.map((c) => c.toString('utf8')),
      ['data: first\n\n', 'data: {"t":"héllo €"}\n\n', 'data: ', 'data: {"t":"ü"}\n\n', 'data: [DONE]\n\n'],
    );
    assert.deepEqual(chunks[1], bytes, 'the bytes went out as they were');
  } finally {
    await srv.close();
  }
});

test('an HTTP/1.0 client gets the bytes unframed through node:http, and the connection closes', async () => {
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    writer.write('data: a\n\n');
    writer.write('data: é\n\n');
    writer.end('data: [DONE]\n\n');
    writer.dispose();
  });
  try {
    const got = (await raw(srv.port, 'POST / HTTP/1.0\r\ncontent-length: 0\r\n\r\n')).toString('utf8');
    const body = got.slice(got.indexOf('\r\n\r\n') + 4);
    assert.equal(body, 'data: a\n\ndata: é\n\ndata: [DONE]\n\n');
    assert.doesNotMatch(got, /transfer-encoding/i);
  } finally {
    await srv.close();
  }
});

test('pipelined requests: a response queued behind another stays in order and whole, and the connection stays usable', async () => {
  const release: Array<() => void> = [];
  const srv = await serve(async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    const name = req.url!.slice(1);
    for (let i = 0; i < 4; i++) {
      writer.write(`data: ${name} ${i}\n\n`);
      // The first response waits between its events, so the second is written while still queued.
      if (name === 'one') await new Promise<void>((resolve) => release.push(resolve));
    }
    writer.end('');
    writer.dispose();
  });
  const timer = setInterval(() => release.shift()?.(), 5);
  try {
    const request = (path: string) => `POST /${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n`;
    const got = await raw(srv.port, request('one') + request('two') + request('three'), endsResponse(3));
    const first = chunked(got);
    const second = chunked(got, first.end);
    const third = chunked(got, second.end);
    assert.equal(third.end, got.length, 'nothing after the third response');
    for (const [name, r] of [
      ['one', first],
      ['two', second],
      ['three', third],
    ] as const) {
      assert.deepEqual(
        r.chunks.map((c) => c.toString('latin1')),
        [0, 1, 2, 3].map((i) => `data: ${name} ${i}\n\n`),
      );
    }
  } finally {
    clearInterval(timer);
    await srv.close();
  }
});

test('a client that stops reading makes write return false; onDrain runs once it reads again, and nothing is lost', async () => {
  const piece = 'x'.repeat(64 * 1024 - 1) + '\n';
  let sent = 0;
  let drains = 0;
  let sawFalse = false;
  const srv = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let wake: (() => void) | null = null;
    const writer = new StreamWriter(res, () => {
      drains++;
      wake?.();
    });
    // Well past what the socket buffers and the kernel holds while the client is not reading.
    while (sent < 200) {
      sent++;
      if (!writer.write(piece)) {
        sawFalse = true;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    }
    writer.end('end\n');
    writer.dispose();
  });
  try {
    const socket = net.connect(srv.port, '127.0.0.1');
    socket.pause();
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n');
    // Until the writer has blocked, the client reads nothing.
    while (!sawFalse) await new Promise((resolve) => setImmediate(resolve));
    const parts: Buffer[] = [];
    const ended = new Promise<void>((resolve) => {
      let tail = '';
      socket.on('data', (d: Buffer) => {
        parts.push(d);
        tail = (tail + d.toString('latin1')).slice(-16);
        if (tail.endsWith('\r\n0\r\n\r\n')) resolve();
      });
    });
    socket.resume();
    await ended;
    socket.destroy();
    const { chunks } = chunked(Buffer.concat(parts));
    const body = Buffer.concat(chunks).toString('latin1');
    assert.equal(body.length, 200 * piece.length + 4);
    assert.equal(body, piece.repeat(200) + 'end\n');
    assert.ok(drains >= 1, 'onDrain ran');
  } finally {
    await srv.close();
  }
});

test('a write that said "wait" is always followed by onDrain, even when the socket then takes it all at once', {
  timeout: 10_000,
}, async () => {
  let drained: () => void = () => {};
  const drainedOnce = new Promise<void>((resolve) => (drained = resolve));
  let said: boolean[] = [];
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {
      drained();
      writer.end('');
      writer.dispose();
    });
    said.push(writer.write('data: small\n\n'));
    // Past the socket's high-water mark, but the kernel takes it whole from a reading client.
    said.push(writer.write(`data: ${'y'.repeat(200 * 1024)}\n\n`));
  });
  try {
    const got = await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n', endsResponse(1));
    await drainedOnce;
    assert.deepEqual(said, [true, false]);
    assert.equal(Buffer.concat(chunked(got).chunks).length, 'data: small\n\n'.length + 200 * 1024 + 8);
  } finally {
    await srv.close();
  }
});

test('keep-alive: the next request on the connection is answered after a stream', async () => {
  const srv = await serve((req, res) => {
    if (req.url === '/plain') {
      res.end('plain');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    for (let i = 0; i < 3; i++) writer.write(`data: ${i}\n\n`);
    writer.end('');
    writer.dispose();
  });
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ body: string; socket: net.Socket }>((resolve, reject) => {
        const req = http.request({ port: srv.port, host: '127.0.0.1', path, method: 'POST', agent }, (res) => {
          let body = '';
          res.setEncoding('latin1');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ body, socket: req.socket! }));
        });
        req.on('error', reject);
        req.end();
      });
    const a = await get('/stream');
    const b = await get('/plain');
    assert.equal(a.body, 'data: 0\n\ndata: 1\n\ndata: 2\n\n');
    assert.equal(b.body, 'plain');
    assert.equal(a.socket, b.socket, 'the same connection served both');
    agent.destroy();
  } finally {
    await srv.close();
  }
});
