// The push feed between a provider and the relay: ordering, backpressure, failure in every state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkFeed, UpstreamBodyTooLarge, BUFFERED_BODY_LIMIT_BYTES } from '../../src/providers/upstream-body.ts';

function recordingSource(): { calls: string[]; source: { pause(): void; resume(): void; abort(reason: Error): void } } {
  const calls: string[] = [];
  return {
    calls,
    source: {
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
      abort: (r) => calls.push(`abort:${r.message}`),
    },
  };
}

test('text() joins every chunk, before or after the end', async () => {
  const early = new ChunkFeed();
  const pending = early.text();
  early.push(Buffer.from('{"a":'));
  early.push(Buffer.from('"é"}'));
  early.end();
  assert.equal(await pending, '{"a":"é"}');

  const late = new ChunkFeed();
  late.push(Buffer.from([0xc3]));
  late.push(Buffer.from([0xa9]));
  late.end();
  assert.equal(await late.text(), 'é', 'a character split across chunks is decoded whole');
});

test('bytes() joins every chunk as bytes, before or after the end, and fails like text() past the limit', async () => {
  const early = new ChunkFeed();
  const pending = early.bytes();
  early.push(Buffer.from([0x1f, 0x8b]));
  early.push(Buffer.from([0x08, 0xff]));
  early.end();
  assert.deepEqual(await pending, Buffer.from([0x1f, 0x8b, 0x08, 0xff]));

  const late = new ChunkFeed();
  late.push(Buffer.from([0xc3]));
  late.end();
  assert.deepEqual(await late.bytes(), Buffer.from([0xc3]), 'bytes that are not UTF-8 are kept as sent');

  const big = new ChunkFeed(4);
  const failing = big.bytes();
  big.push(Buffer.from('12345'));
  await assert.rejects(failing, { name: 'UpstreamBodyTooLarge' });
});

test('started() waits for the first chunk without consuming it; pipe() then delivers it and the rest in order', async () => {
  const feed = new ChunkFeed();
  const started = feed.started();
  feed.push(Buffer.from('one '));
  assert.equal(await started, true);
  feed.push(Buffer.from('two '));
  const seen: string[] = [];
  const piped = feed.pipe((c) => {
    seen.push(c.toString());
    return true;
  });
  feed.push(Buffer.from('three'));
  feed.end();
  await piped;
  assert.deepEqual(seen, ['one ', 'two ', 'three']);
});

test('started() is false for a body that ends empty', async () => {
  const feed = new ChunkFeed();
  const started = feed.started();
  feed.end();
  assert.equal(await started, false);
});

test('a sink that returns false pauses the source; resume() passes through', async () => {
  const feed = new ChunkFeed();
  const { calls, source } = recordingSource();
  feed.source = source;
  feed.push(Buffer.from('a'));
  const piped = feed.pipe(() => false);
  assert.deepEqual(calls, ['pause'], 'a full sink on the queued chunk pauses at once');
  assert.equal(feed.push(Buffer.from('b')), false, 'a live chunk into a full sink asks the producer to pause');
  feed.resume();
  assert.deepEqual(calls, ['pause', 'resume']);
  feed.end();
  await piped;
});

test('a sink that throws fails the pipe and aborts the source', async () => {
  const feed = new ChunkFeed();
  const { calls, source } = recordingSource();
  feed.source = source;
  const piped = feed.pipe(() => {
    throw new Error('bad chunk');
  });
  assert.equal(feed.push(Buffer.from('x')), false);
  await assert.rejects(piped, /bad chunk/);
  assert.deepEqual(calls, ['abort:bad chunk']);
  assert.equal(feed.push(Buffer.from('y')), false, 'nothing is taken after a failure');
});

test('a failure reaches whichever read is waiting, and later reads', async () => {
  const waitingText = new ChunkFeed();
  const t = waitingText.text();
  waitingText.fail(new Error('socket reset'));
  await assert.rejects(t, /socket reset/);
  await assert.rejects(waitingText.started(), /socket reset/);

  const piping = new ChunkFeed();
  piping.push(Buffer.from('a'));
  const p = piping.pipe(() => true);
  piping.fail(new Error('idle timeout'));
  await assert.rejects(p, /idle timeout/);
});

test('a second reader is refused rather than splitting the body', async () => {
  const feed = new ChunkFeed();
  const first = feed.pipe(() => true);
  await assert.rejects(
    feed.pipe(() => true),
    /already being read/,
  );
  feed.end();
  await first;
});

test('a buffered body past its limit fails the reader and stops the upstream; a piped one is never capped', async () => {
  const feed = new ChunkFeed(10);
  const { calls, source } = recordingSource();
  feed.source = source;
  const pending = feed.text();
  assert.equal(feed.push(Buffer.from('12345')), true);
  assert.equal(feed.push(Buffer.from('678901')), false, 'the producer is told to stop');
  await assert.rejects(pending, (err: unknown) => err instanceof UpstreamBodyTooLarge && /10 bytes/.test(err.message));
  assert.deepEqual(calls, ["abort:The upstream's answer exceeded 10 bytes."]);
  assert.equal(feed.push(Buffer.from('more')), false, 'nothing is taken after the failure');

  // Queued before anyone reads: the limit applies from the first chunk on.
  const early = new ChunkFeed(4);
  early.push(Buffer.from('12345'));
  await assert.rejects(early.text(), UpstreamBodyTooLarge);

  const piped = new ChunkFeed(4);
  let seen = 0;
  const done = piped.pipe((c) => {
    seen += c.length;
    return true;
  });
  for (let i = 0; i < 5; i++) piped.push(Buffer.from('12345'));
  piped.end();
  await done;
  assert.equal(seen, 25);
  assert.equal(BUFFERED_BODY_LIMIT_BYTES, 64 * 1024 * 1024, 'the default the docs state');
});

/** Pipes `feed`, writing each chunk's text and then 'end' (from onEnd) into `order`. */
function pipeInto(feed: ChunkFeed, order: string[]): Promise<void> {
  return feed.pipe(
    (c) => {
      order.push(c.toString());
      return true;
    },
    () => order.push('end'),
  );
}

test("pipe()'s onEnd runs inside end(), in the same turn as the last chunk, before the promise settles", async () => {
  const feed = new ChunkFeed();
  const order: string[] = [];
  const piped = pipeInto(feed, order);
  piped.then(() => order.push('settled'));
  feed.push(Buffer.from('last'));
  feed.end();
  assert.deepEqual(order, ['last', 'end'], 'onEnd ran synchronously within end()');
  await piped;
  assert.deepEqual(order, ['last', 'end', 'settled']);
});

test('pipe() on a body that already ended delivers the queue, then runs onEnd before returning', async () => {
  const feed = new ChunkFeed();
  feed.push(Buffer.from('a'));
  feed.end();
  const order: string[] = [];
  const piped = pipeInto(feed, order);
  assert.deepEqual(order, ['a', 'end']);
  await piped;
});

test('an onEnd that throws rejects the pipe with its error, whether the body ends before or during the pipe', async () => {
  const live = new ChunkFeed();
  const piped = live.pipe(
    () => true,
    () => {
      throw new Error('incomplete stream');
    },
  );
  live.end();
  await assert.rejects(piped, /incomplete stream/);

  const ended = new ChunkFeed();
  ended.end();
  await assert.rejects(
    ended.pipe(
      () => true,
      () => {
        throw new Error('too late');
      },
    ),
    /too late/,
  );
});
