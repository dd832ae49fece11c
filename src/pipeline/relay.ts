// The relay step of a streamed generation request: the committed upstream stream goes to the client
// under its backpressure, with the key's rate headers; keep-alive comments while the upstream is silent.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { StreamWriter } from '../http/stream-writer.ts';
import { StreamKeepAlive } from '../http/stream-keep-alive.ts';
import { streamFailure, type Answer } from '../routing/attempts.ts';
import { StagedRelay } from '../stages/staged-relay.ts';
import type { Flight } from './generate.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { costHeader, loggedMessage } from '../accounting/record.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  // The request's cost is known once the stream's usage has passed: it follows the body as a trailer.
  trailer: 'x-modelgate-cost',
};

/** Comments while the upstream is silent; the first one sends the stream's 200 and headers. */
export function keepAliveFor(res: ServerResponse, flight: Flight, intervalMs: number): StreamKeepAlive {
  const { requestId } = flight.state;
  return new StreamKeepAlive({
    res,
    intervalMs,
    headers: () => ({ ...SSE_HEADERS, 'x-request-id': requestId, 'request-id': requestId, ...flight.ticket?.headers }),
  });
}

/** Relays a stream; returns the Responses API response object it ended with, when there is one. */
export async function relayStream(
  gw: { catalog: Catalog; masker: Pick<SecretMasker, 'mask'> },
  res: ServerResponse,
  flight: Flight,
  answer: Answer,
): Promise<string | null> {
  const { state } = flight;
  // The reply's stages rewrite its text deltas; without them the exchange's own relay runs alone.
  const stages = flight.stages;
  const inner =
    stages === null || !stages.replies
      ? answer.exchange.stream()
      : new StagedRelay(answer.exchange.stream(), {
          list: stages,
          dialect: flight.endpoint.dialect,
          counter: flight.tally!,
        });
  const { framing } = flight.endpoint;
  const relay = framing === undefined ? inner : framing.wrap(inner);
  state.status = 200;
  // Keep-alive comments may have sent the headers already (without the exchange's own, which came later).
  if (!res.headersSent)
    res.writeHead(200, {
      ...SSE_HEADERS,
      'content-type': framing === undefined ? SSE_HEADERS['content-type'] : framing.contentType,
      'x-request-id': state.requestId,
      'request-id': state.requestId,
      ...answer.exchange.responseHeaders,
      ...flight.ticket?.headers,
    });
  // Headers go out with the first body bytes, so time to first byte is the first write below.
  // Chunks arrive synchronously from the upstream's parser; a full client socket pauses the upstream,
  // and while it is paused for the client its silence does not count as idle.
  const { watch } = answer;
  const writer = new StreamWriter(res, () => {
    watch.release();
    answer.body.resume();
  });
  /** The stream's last bytes, held while what the reply left for the next turn is written. */
  let held: { tail: string | Uint8Array; kept: Promise<void> } | null = null;
  try {
    await answer.body.pipe(
      (chunk) => {
        watch.chunk();
        const out = relay.push(chunk);
        if (out.length === 0) return true;
        flight.capture?.add(out);
        state.markFirstByte();
        if (writer.write(out)) return true;
        watch.hold();
        return false;
      },
      // Synchronous with the last chunk: the stream's end goes out in the same write as its last event.
      () => {
        const tail = relay.end();
        if (!relay.finished)
          throw new GatewayError('upstream_error', { message: 'The upstream stream ended before it was complete.' });
        state.markFirstByte();
        state.usage = relay.usage();
        res.addTrailers({ 'x-modelgate-cost': costHeader(gw, state) });
        if (tail.length > 0) flight.capture?.add(tail);
        const kept = answer.exchange.kept?.() ?? null;
        if (kept === null) writer.end(tail);
        else held = { tail, kept };
      },
    );
    // Written before the caller sees the end, so its next turn finds it on any replica.
    if (held !== null) {
      const { tail, kept } = held;
      await kept;
      writer.end(tail);
    }
  } catch (err) {
    // Whatever broke, the upstream is let go of now: no orphaned upstream stream.
    answer.watch.abandon();
    state.usage = relay.usage();
    if (answer.watch.reason === 'client' || res.destroyed || res.writableEnded) {
      state.errorCode = 'client_disconnected';
      state.status = 499;
      return null;
    }
    // A stream the gateway itself stopped (shutting down) says nothing about the deployment's health.
    if (answer.watch.reason !== 'shutdown') answer.streamFailed(answer.watch.reason === null ? err : undefined);
    const gerr = streamFailure(err, answer.watch.reason);
    state.errorCode = gerr.code;
    state.errorMessage = loggedMessage(gw.masker, gerr.message);
    state.status = gerr.status;
    writer.end(relay.errorEvent(gerr, state.requestId));
    return null;
  } finally {
    writer.dispose();
    answer.watch.dispose();
  }
  state.usage = relay.usage();
  if (relay.failed) {
    // The relay ended the stream with its own error event: the row and the deployment's health say so.
    answer.streamFailed();
    state.status = 502;
    state.errorCode = 'upstream_error';
    state.errorMessage = 'The upstream stream ended with an error; the caller got it as the stream’s error event.';
    return null;
  }
  return relay.finalResponse?.() ?? null;
}
