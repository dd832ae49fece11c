// The latency client's framing: requests as one buffer, responses ended by content-length or chunks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestBytes, responseEnd } from '../lib/raw-http.ts';

describe('raw-http', () => {
  it('writes a POST as one buffer with host and content-length', () => {
    const text = requestBytes({
      url: 'http://127.0.0.1:9/v1/chat/completions',
      method: 'POST',
      headers: { authorization: 'Bearer x' },
      body: '{"a":"é"}',
    }).toString();
    assert.equal(
      text,
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:9\r\nauthorization: Bearer x\r\ncontent-length: 10\r\n\r\n{"a":"é"}',
    );
  });

  it('ends a content-length response only when its body is all in, and ignores what follows', () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n';
    assert.equal(responseEnd(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le')), null);
    assert.equal(responseEnd(Buffer.from(`${head}abc`)), null);
    assert.deepEqual(responseEnd(Buffer.from(`${head}abcdeHTTP/1.1`)), { status: 200, length: head.length + 5 });
  });

  it('walks chunk sizes to the last chunk, so a body that contains "0\\r\\n\\r\\n" does not end it early', () => {
    const head = 'HTTP/1.1 502 Bad Gateway\r\ntransfer-encoding: chunked\r\n\r\n';
    const body = '7\r\nx0\r\n\r\ny\r\n';
    assert.equal(responseEnd(Buffer.from(`${head}${body}`)), null);
    assert.equal(responseEnd(Buffer.from(`${head}${body}0\r\n`)), null);
    assert.deepEqual(responseEnd(Buffer.from(`${head}${body}0\r\n\r\n`)), {
      status: 502,
      length: head.length + body.length + 5,
    });
  });
});
