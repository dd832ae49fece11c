// Request bodies: one read when the whole body came with the headers, the event path otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../src/http/body.ts';

async function withServer(limit: number, fn: (port: number) => Promise<void>): Promise<void> {
  const server: Server = createServer((req, res) => {
    readBody(req, { bytes: limit }).then(
      (buf) => res.end(`ok ${buf.length} ${buf.toString('utf8').slice(0, 20)}`),
      (err: Error) => res.end(`error ${err.message}`),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Writes the raw request in the given pieces, a turn apart, and returns the response body. */
function raw(port: number, pieces: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
      const at = data.indexOf('\r\n\r\n');
      if (at !== -1 && /ok|error/.test(data.slice(at))) {
        socket.destroy();
        resolve(
          data
            .slice(at + 4)
            .replace(/^[0-9a-f]+\r\n/, '')
            .replace(/\r\n0\r\n\r\n$/, ''),
        );
      }
    });
    socket.on('error', reject);
    let i = 0;
    const next = (): void => {
      if (i < pieces.length) socket.write(pieces[i++], () => setImmediate(next));
    };
    next();
  });
}

const head = (len: number): string =>
  `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${len}\r\n\r\n`;

test('a body that arrives with its headers is read whole', async () => {
  await withServer(1024, async (port) => {
    const body = '{"model":"m","messages":[]}';
    assert.equal(await raw(port, [head(body.length) + body]), `ok ${body.length} {"model":"m","messag`);
  });
});

test('a body that arrives in pieces after the headers is read whole', async () => {
  await withServer(1024, async (port) => {
    const body = '{"model":"m","messages":["é"]}';
    const bytes = Buffer.byteLength(body);
    assert.equal(await raw(port, [head(bytes), body.slice(0, 10), body.slice(10)]), `ok ${bytes} {"model":"m","messag`);
    assert.equal(await raw(port, [head(bytes) + body.slice(0, 5), body.slice(5)]), `ok ${bytes} {"model":"m","messag`);
  });
});

test('a chunked body is read whole', async () => {
  await withServer(1024, async (port) => {
    const req = 'POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\n';
    assert.equal(await raw(port, [req, '2\r\n1}\r\n0\r\n\r\n']), 'ok 7 {"a":1}');
  });
});

test('a body over the limit is refused, declared or not', async () => {
  await withServer(16, async (port) => {
    const body = '{"model":"' + 'x'.repeat(40) + '"}';
    assert.match(await raw(port, [head(body.length) + body]), /^error The request body exceeds/);
    const chunked = `POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    assert.match(await raw(port, [chunked]), /^error The request body exceeds/);
  });
});

test('a UTF-8 byte order mark before the JSON is dropped from the bytes, whole or in pieces', async () => {
  await withServer(1024, async (port) => {
    const body = '\ufeff{"a":1}';
    const bytes = Buffer.byteLength(body);
    assert.equal(await raw(port, [head(bytes) + body]), 'ok 7 {"a":1}');
    assert.equal(await raw(port, [head(bytes), body.slice(0, 1), body.slice(1)]), 'ok 7 {"a":1}');
    // Only at the start: a mark inside a string is the caller's content.
    const inside = '{"a":"\ufeff"}';
    assert.equal(
      await raw(port, [head(Buffer.byteLength(inside)) + inside]),
      `ok ${Buffer.byteLength(inside)} ${inside}`,
    );
  });
});

test('plain bodies arriving in pieces share one budget: past it a body is refused 503 with retry-after, and its bytes come back', async () => {
  const { PassThrough } = await import('node:stream');
  const { DecodeBudget } = await import('../../src/http/decode-budget.ts');
  const budget = new DecodeBudget(100);
  const request = (length: number) =>
    Object.assign(new PassThrough(), { headers: { 'content-length': String(length) }, socket: {} });
  const a = request(90);
  const readA = readBody(a as never, { bytes: 1000, decoding: budget });
  await new Promise((r) => setImmediate(r));
  a.write(Buffer.alloc(80, 0x20));
  await new Promise((r) => setImmediate(r));
  assert.equal(budget.inUse, 80, 'a body being read holds its bytes');
  const b = request(60);
  const readB = readBody(b as never, { bytes: 1000, decoding: budget });
  await new Promise((r) => setImmediate(r));
  b.write(Buffer.alloc(30, 0x20));
  const refused = await readB.then(
    () => null,
    (err: { code: string; status: number; headers?: Record<string, string> }) => err,
  );
  assert.equal(refused?.code, 'decoding_busy');
  assert.equal(refused?.status, 503);
  assert.equal(refused?.headers?.['retry-after'], '1');
  a.end(Buffer.alloc(10, 0x20));
  assert.equal((await readA).length, 90);
  assert.equal(budget.inUse, 0, 'a whole body gives its bytes back');
});
