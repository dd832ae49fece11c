// The built-in `mock` provider: answers in whichever dialect it is called with, in-process, with
// optional latency and chunk pacing (the benchmarks and the zero-setup first run use it).
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { isObject } from '../../dialects/request-facts.ts';
import type { UpstreamCall, UpstreamResponse } from '../upstream-types.ts';
import { anthropicMockEvents, anthropicMockJson } from './mock-anthropic.ts';
import { openaiMockEvents, openaiMockJson } from './mock-openai.ts';
import { planMockReply } from './mock-reply.ts';

export async function callMockProvider(call: UpstreamCall): Promise<UpstreamResponse> {
  const { mock } = call.deployment.provider;
  if (mock.latencyMs > 0) await delay(mock.latencyMs, undefined, { signal: call.signal });
  const body: unknown = JSON.parse(call.body);
  if (!isObject(body)) throw new Error('mock provider: body is not an object');
  const model = typeof body.model === 'string' ? body.model : call.deployment.model;
  const suffix = randomBytes(12).toString('hex');
  const plan = planMockReply(body, mock.replyWords, call.dialect === 'anthropic' ? `toolu_${suffix}` : `call_${suffix}`);
  const stream = body.stream === true;
  if (!stream) {
    const json =
      call.dialect === 'anthropic'
        ? anthropicMockJson(plan, { id: `msg_${suffix}`, model })
        : openaiMockJson(plan, { id: `chatcmpl-${suffix}`, model, created: Math.floor(Date.now() / 1000) });
    return { status: 200, headers: { 'content-type': 'application/json' }, body: once(Buffer.from(json)) };
  }
  const events =
    call.dialect === 'anthropic'
      ? anthropicMockEvents(plan, { id: `msg_${suffix}`, model })
      : openaiMockEvents(plan, {
          id: `chatcmpl-${suffix}`,
          model,
          created: Math.floor(Date.now() / 1000),
          includeUsage: isObject(body.stream_options) && body.stream_options.include_usage === true,
        });
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: paced(events, mock.chunkDelayMs, call.signal) };
}

async function* once(buf: Buffer): AsyncGenerator<Uint8Array> {
  yield buf;
}

async function* paced(events: string[], delayMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  if (delayMs === 0) {
    // Unpaced: one write, the cheapest the benchmarks can measure the gateway against.
    yield Buffer.from(events.join(''));
    return;
  }
  for (const e of events) {
    yield Buffer.from(e);
    await delay(delayMs, undefined, { signal });
  }
}
