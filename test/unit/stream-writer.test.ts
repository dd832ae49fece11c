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

test('after the first write, strings go to the socket as whole chunks, latin1 byte for byte and UTF-8 by their byte length', async () => {
  const utf8Bytes = Buffer.from('data: {"t":"héllo €"}\n\n', 'utf8');
  let direct: boolean[] = [];
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    writer.write('data: first\n\n', 'latin1');
    direct.push(writer.direct);
    writer.write(utf8Bytes.toString('latin1'), 'latin1');
    writer.write('data: {"t":"ü"}\n\n', 'utf8');
    writer.write('', 'latin1');
    writer.write(Buffer.from('data: bytes\n\n'), 'latin1');
    direct.push(writer.direct);
    writer.end('data: [DONE]\n\n', 'latin1');
    writer.dispose();
  });
  try {
    const got = await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n', endsResponse(1));
    const { head, chunks } = chunked(got);
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(head, /transfer-encoding: chunked/i);
    assert.deepEqual(
      chunks.map((c) => c.toString('utf8')),
      ['data: first\n\n', 'data: {"t":"héllo €"}\n\n', 'data: {"t":"ü"}\n\n', 'data: bytes\n\n', 'data: [DONE]\n\n'],
    );
    assert.deepEqual(chunks[1], utf8Bytes, 'the latin1 string went out as the very bytes it was read from');
    assert.deepEqual(direct, [true, true], 'writes after the first went straight to the socket');
  } finally {
    await srv.close();
  }
});

test('what one turn writes leaves in one socket write at its end; the end goes out with what is held', async () => {
  const calls: Array<{ text: string; corked: number }> = [];
  let heldInTurn = -1;
  let afterTurn = -1;
  const srv = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    writer.write('data: first\n\n', 'latin1');
    const socket = res.socket!;
    const write = socket.write.bind(socket) as (chunk: string | Uint8Array, encoding?: BufferEncoding) => boolean;
    socket.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding) => {
      calls.push({ text: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1'), corked: socket.writableCorked });
      return write(chunk, encoding);
    }) as typeof socket.write;
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 1; i <= 3; i++) writer.write(`data: ${i}\n\n`, 'latin1');
    heldInTurn = calls.length;
    await new Promise((resolve) => setImmediate(resolve));
    afterTurn = calls.length;
    writer.write('data: 4\n\n', 'latin1');
    writer.end('data: [DONE]\n\n', 'latin1');
    writer.dispose();
  });
  try {
    const got = await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n', endsResponse(1));
    assert.deepEqual(
      chunked(got).chunks.map((c) => c.toString('latin1')),
      ['data: first\n\n', 'data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n', 'data: 4\n\n', 'data: [DONE]\n\n'],
    );
    assert.equal(heldInTurn, 0, 'nothing written during the turn');
    assert.equal(afterTurn, 1, 'one socket write at its end');
    assert.equal(calls[0].text, '9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n9\r\ndata: 3\n\n\r\n');
    assert.equal(calls[1].text, '9\r\ndata: 4\n\n\r\n');
    assert.ok(calls.slice(1).every((c) => c.corked > 0), 'the held chunk and the end are written corked: one system call');
  } finally {
    await srv.close();
  }
});

test('the events that come in the same turn as the first one join its corked write: one system call for the head and all of them', async () => {
  const calls: Array<{ text: string; corked: number }> = [];
  let duringTurn = -1;
  let afterTurn = -1;
  const srv = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const socket = res.socket!;
    const write = socket.write.bind(socket) as (chunk: string | Uint8Array, encoding?: BufferEncoding) => boolean;
    socket.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding) => {
      calls.push({ text: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1'), corked: socket.writableCorked });
      return write(chunk, encoding);
    }) as typeof socket.write;
    const writer = new StreamWriter(res, () => {});
    // One upstream read that holds three events, as a stream's first read often does.
    for (const event of ['data: first\n\n', 'data: 1\n\n', 'data: 2\n\n']) writer.write(event, 'latin1');
    duringTurn = calls.length;
    await new Promise((resolve) => setImmediate(resolve));
    afterTurn = calls.length;
    writer.end('data: [DONE]\n\n', 'latin1');
    writer.dispose();
  });
  try {
    const got = await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n', endsResponse(1));
    assert.deepEqual(
      chunked(got).chunks.map((c) => c.toString('latin1')),
      ['data: first\n\n', 'data: 1\n\n', 'data: 2\n\n', 'data: [DONE]\n\n'],
    );
    assert.ok(duringTurn > 0, 'the first event went to the socket in its turn');
    assert.equal(afterTurn, duringTurn, 'nothing was left for the end-of-turn flush');
    const inTurn = calls.slice(0, duringTurn);
    assert.ok(inTurn.every((c) => c.corked > 0), `every write of the turn was corked: ${JSON.stringify(inTurn)}`);
    assert.ok(inTurn.some((c) => c.text === '9\r\ndata: 2\n\n\r\n'), 'the last event went into the corked socket framed whole');
  } finally {
    await srv.close();
  }
});

test('an HTTP/1.0 client gets the bytes unframed through node:http, and the connection closes', async () => {
  let direct = true;
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    writer.write('data: a\n\n', 'latin1');
    writer.write('data: é\n\n', 'utf8');
    direct = writer.direct;
    writer.end('data: [DONE]\n\n', 'latin1');
    writer.dispose();
  });
  try {
    const got = (await raw(srv.port, 'POST / HTTP/1.0\r\ncontent-length: 0\r\n\r\n')).toString('utf8');
    const body = got.slice(got.indexOf('\r\n\r\n') + 4);
    assert.equal(body, 'data: a\n\ndata: é\n\ndata: [DONE]\n\n');
    assert.doesNotMatch(got, /transfer-encoding/i);
    assert.equal(direct, false);
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
      writer.write(`data: ${name} ${i}\n\n`, 'latin1');
      // The first response waits between its events, so the second is written while still queued.
      if (name === 'one') await new Promise<void>((resolve) => release.push(resolve));
    }
    writer.end('', 'latin1');
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
    for (const [name, r] of [['one', first], ['two', second], ['three', third]] as const) {
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
      if (!writer.write(piece, 'latin1')) {
        sawFalse = true;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    }
    writer.end('end\n', 'latin1');
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

test('a write that said "wait" is always followed by onDrain, even when the socket then takes it all at once', { timeout: 10_000 }, async () => {
  let drained: () => void = () => {};
  const drainedOnce = new Promise<void>((resolve) => (drained = resolve));
  let said: boolean[] = [];
  const srv = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {
      drained();
      writer.end('', 'latin1');
      writer.dispose();
    });
    said.push(writer.write('data: small\n\n', 'latin1'));
    // Past the socket's high-water mark, but the kernel takes it whole from a reading client.
    said.push(writer.write(`data: ${'y'.repeat(200 * 1024)}\n\n`, 'latin1'));
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

for (const when of ['in the first, corked turn', 'at a later end-of-turn flush'] as const) {
  test(`a socket that throws ${when} cuts that response only; the process goes on`, async () => {
    let closed = false;
    const srv = await serve(async (req, res) => {
      if (req.url === '/ok') {
        res.end('ok');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const writer = new StreamWriter(res, () => {});
      writer.write('data: first\n\n', 'latin1');
      if (when === 'at a later end-of-turn flush') await new Promise((resolve) => setImmediate(resolve));
      const socket = res.socket!;
      socket.on('close', () => (closed = true));
      socket.write = (() => {
        throw new Error('broken socket');
      }) as typeof socket.write;
      assert.equal(writer.write('data: lost\n\n', 'latin1'), when === 'at a later end-of-turn flush');
      await new Promise((resolve) => setImmediate(resolve));
      writer.dispose();
    });
    try {
      const got = (await raw(srv.port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n')).toString('latin1');
      // In the first turn the head and the first event are still in the corked socket: they go with it.
      if (when === 'at a later end-of-turn flush') assert.match(got, /data: first/);
      assert.doesNotMatch(got, /data: lost/);
      assert.ok(closed, 'the connection was closed');
      // The server still answers.
      const again = await raw(srv.port, 'GET /ok HTTP/1.0\r\n\r\n');
      assert.match(again.toString('latin1'), /^HTTP\/1\.1 200 OK[^]*\r\n\r\nok$/);
    } finally {
      await srv.close();
    }
  });
}

test('keep-alive: the next request on the connection is answered after a directly written stream', async () => {
  const srv = await serve((req, res) => {
    if (req.url === '/plain') {
      res.end('plain');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = new StreamWriter(res, () => {});
    for (let i = 0; i < 3; i++) writer.write(`data: ${i}\n\n`, 'latin1');
    writer.end('', 'latin1');
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
