// The Responses pass-through tap on literal SSE: bytes forwarded with only the model renamed, usage read
// from response.completed, the final response kept for storage, whatever the chunk boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponsesStreamTap } from '../../src/dialects/openai-responses/passthrough-tap.ts';

const SSE = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"up-model","output":[]}}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Héllo \\"model\\":\\"up-model\\""}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" there"}\n\n',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":3,"response":{"id":"resp_1","object":"response","status":"completed","model":"up-model","output":[],"usage":{"input_tokens":30,"input_tokens_details":{"cached_tokens":10},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":35}}}\n\n',
].join('');

function run(chunkSize: number): { out: string; tap: ResponsesStreamTap } {
  const tap = new ResponsesStreamTap({ clientModel: 'client-model', upstreamModel: 'up-model' });
  const bytes = Buffer.from(SSE);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) out.push(tap.push(bytes.subarray(i, i + chunkSize)));
  out.push(tap.end());
  return { out: Buffer.concat(out).toString('utf8'), tap };
}

test('forwards the bytes with the model renamed in the lifecycle events only; reads usage; keeps the final response', () => {
  for (const size of [SSE.length, 64, 7, 1]) {
    const { out, tap } = run(size);
    assert.equal(
      out,
      SSE.replaceAll('"model":"up-model"', '"model":"client-model"').replace(
        '\\"model\\":\\"client-model\\"',
        '\\"model\\":\\"up-model\\"',
      ),
      `chunks of ${size}`,
    );
    assert.equal(tap.finished, true);
    assert.deepEqual(tap.usage, {
      inputTokens: 20,
      outputTokens: 5,
      cacheReadTokens: 10,
      cacheWriteTokens: 0,
      reasoningTokens: 2,
    });
    assert.equal(tap.deltaEvents, 2);
    assert.equal(tap.events, 4);
    assert.equal((JSON.parse(tap.finalResponse!) as { model: string }).model, 'client-model');
  }
});

test('a stream cut before its terminal event is not finished and has no usage; an upstream error event ends it well-formed', () => {
  const tap = new ResponsesStreamTap({ clientModel: 'm', upstreamModel: 'm' });
  tap.push(Buffer.from(SSE.split('event: response.completed')[0]));
  assert.equal(tap.finished, false);
  assert.equal(tap.sawUsage, false);
  assert.equal(tap.endsWithError(), false);
  tap.push(
    Buffer.from(
      'event: error\ndata: {"type":"error","code":"server_error","message":"x","param":null,"sequence_number":3}\n\n',
    ),
  );
  assert.equal(tap.endsWithError(), true);
});
