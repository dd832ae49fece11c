// The built-in `mock` provider: answers in whichever dialect it is called with (embeddings too), in-process, with
// optional latency and chunk pacing (the benchmarks and the zero-setup first run use it).
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { isObject } from '../../core/json.ts';
import type { StopLink, UpstreamCall, UpstreamResponse } from '../../spec/upstream.ts';
import { ChunkFeed } from '../upstream-body.ts';
import { anthropicMockEvents, anthropicMockJson } from './mock-anthropic.ts';
import { openaiMockEvents, openaiMockJson } from './mock-openai.ts';
import { responsesMockEvents, responsesMockJson, responsesPlanView } from './mock-responses.ts';
import { planMockReply } from './mock-reply.ts';
import { embeddingsMockJson, geminiMockEvents, geminiMockJson, plannerBodyOfGemini } from './mock-gemini.ts';

export interface MockOptions {
  /** Delay before the response headers, ms. */
  latencyMs: number;
  /** Delay between stream chunks, ms. */
  chunkDelayMs: number;
  /** Words in the deterministic reply. */
  replyWords: number;
}

export async function callMockProvider(call: UpstreamCall): Promise<UpstreamResponse> {
  const mock = call.deployment.provider.options as MockOptions;
  const { dialect } = call.query;
  if (mock.latencyMs > 0) await delay(mock.latencyMs, undefined, { signal: call.stop.signal });
  const body: unknown = JSON.parse(typeof call.body === 'string' ? call.body : call.body.toString('utf8'));
  if (!isObject(body)) throw new Error('mock provider: body is not an object');
  const model = typeof body.model === 'string' ? body.model : call.deployment.model;
  const json = (text: string): UpstreamResponse => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: feedOf(once(Buffer.from(text)), call.stop),
  });
  if (call.query.operation === 'embeddings') return json(embeddingsMockJson(body, model));
  const suffix = randomBytes(12).toString('hex');
  if (dialect === 'gemini') {
    // Gemini names the model in the path and streams only when the path says so.
    const plan = planMockReply(plannerBodyOfGemini(body), mock.replyWords, `call_${suffix}`);
    const ids = { id: suffix, model: call.deployment.model };
    if (!call.query.stream) return json(geminiMockJson(plan, ids));
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: feedOf(paced(geminiMockEvents(plan, ids), mock.chunkDelayMs, call.stop), call.stop),
    };
  }
  const plan = planMockReply(
    dialect === 'responses' ? responsesPlanView(body) : body,
    mock.replyWords,
    dialect === 'anthropic' ? `toolu_${suffix}` : `call_${suffix}`,
  );
  const stream = body.stream === true;
  if (dialect === 'responses') {
    const ids = { id: `resp_${suffix}`, model, created: Math.floor(Date.now() / 1000), request: body };
    if (!stream)
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: feedOf(once(Buffer.from(responsesMockJson(plan, ids))), call.stop),
      };
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: feedOf(paced(responsesMockEvents(plan, ids), mock.chunkDelayMs, call.stop), call.stop),
    };
  }
  if (!stream) {
    const json =
      dialect === 'anthropic'
        ? anthropicMockJson(plan, { id: `msg_${suffix}`, model })
        : openaiMockJson(plan, { id: `chatcmpl-${suffix}`, model, created: Math.floor(Date.now() / 1000) });
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: feedOf(once(Buffer.from(json)), call.stop),
    };
  }
  const events =
    dialect === 'anthropic'
      ? anthropicMockEvents(plan, { id: `msg_${suffix}`, model })
      : openaiMockEvents(plan, {
          id: `chatcmpl-${suffix}`,
          model,
          created: Math.floor(Date.now() / 1000),
          includeUsage: isObject(body.stream_options) && body.stream_options.include_usage === true,
        });
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: feedOf(paced(events, mock.chunkDelayMs, call.stop), call.stop),
  };
}

async function* once(buf: Buffer): AsyncGenerator<Uint8Array> {
  yield buf;
}

async function* paced(events: string[], delayMs: number, stop: StopLink): AsyncGenerator<Uint8Array> {
  if (delayMs === 0) {
    // Unpaced: one write, the cheapest the benchmarks can measure the gateway against.
    yield Buffer.from(events.join(''));
    return;
  }
  for (const e of events) {
    yield Buffer.from(e);
    // The attempt's AbortSignal is made only for paced replies that need one.
    await delay(delayMs, undefined, { signal: stop.signal });
  }
}

/** Feeds an in-process body into the same push feed the network providers use; stops with the attempt. */
function feedOf(chunks: AsyncIterable<Uint8Array>, stop: StopLink): ChunkFeed {
  const feed = new ChunkFeed();
  let waiting: (() => void) | null = null;
  let paused = false;
  feed.source = {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      waiting?.();
    },
    abort: () => undefined,
  };
  stop.onStop((reason) => {
    feed.fail(reason);
    waiting?.();
  });
  void (async () => {
    try {
      for await (const chunk of chunks) {
        if (stop.stopError !== null) return;
        if (!feed.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))) paused = true;
        while (paused && stop.stopError === null) await new Promise<void>((r) => (waiting = r));
      }
      feed.end();
    } catch (err) {
      feed.fail(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  return feed;
}
