// The Converse route is /v1/messages underneath, as the InvokeModel route is: a Converse body goes through
// the hub into the Messages body the rest of the gateway serves (keys, budgets, limits, stages, routing,
// every model translated where it is not Claude), and the Messages reply comes back through the hub into
// Converse's. What the Messages wire cannot carry is named in `adjusted` (sent as x-modelgate-adjusted).
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';
import type { ClientReplyContext } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import type { Frame } from '../../spec/framing.ts';
import type { HubRequest } from '../../spec/form.ts';
import { TranslationError } from '../../spec/translation-error.ts';
import { messagesUpstream } from '../anthropic-messages/index.ts';
import type { AnthropicVersion } from '../anthropic-messages/version.ts';
import { decodeConverseRequest } from './decode-request.ts';
import { encodeConverseReply } from './encode-reply.ts';
import { ConverseStreamEncoder } from './encode-stream.ts';

/** The Messages version a Converse request is read and forwarded under. */
const VERSION: AnthropicVersion = '2023-06-01';

export interface ConverseAsMessages {
  body: Record<string, unknown>;
  version: AnthropicVersion;
  forward: Record<string, string>;
  /** What the Messages body leaves out of the caller's request. */
  adjusted: string[];
  /** The decoded request, for the reply's encoder. */
  request: HubRequest;
}

/** A Converse body (the model from the path) as a /v1/messages body naming the gateway's model. */
export function converseAsMessages(
  value: unknown,
  at: { model: string; stream: boolean; defaultMaxTokens: number },
): ConverseAsMessages {
  if (!isObject(value))
    throw new GatewayError('invalid_request', { message: 'The request body must be a JSON object.' });
  try {
    const request = decodeConverseRequest(value, { stream: at.stream });
    const encoded = messagesUpstream.encodeRequest(request, {
      upstreamModel: at.model,
      defaultMaxTokens: at.defaultMaxTokens,
      refusedParams: [],
    });
    const body = JSON.parse(encoded.body) as Record<string, unknown>;
    return {
      body,
      version: VERSION,
      forward: { 'anthropic-version': VERSION },
      adjusted: encoded.adjustments,
      request,
    };
  } catch (err) {
    if (err instanceof TranslationError)
      throw new GatewayError('invalid_request', { message: err.message, param: err.param });
    throw err;
  }
}

const NO_JSON_MODE = { jsonMode: null };

function context(request: HubRequest): ClientReplyContext {
  return { model: '', created: 0, request, promptEstimate: () => 0 };
}

/** A whole Messages reply (JSON text) as Converse's reply. */
export function messagesReplyAsConverse(text: string, request: HubRequest, latencyMs: number): string {
  const reply = messagesUpstream.decodeReply(JSON.parse(text) as Record<string, unknown>, NO_JSON_MODE);
  return encodeConverseReply(reply, context(request), latencyMs);
}

/**
 * A Messages stream's frames → ConverseStream events (as SSE text, `event:` the Converse type) and, when
 * the stream failed, the hub's error event for the framing to write as an exception message.
 */
export class MessagesStreamAsConverse {
  readonly #decoder = messagesUpstream.streamDecoder(NO_JSON_MODE);
  readonly #encoder: ConverseStreamEncoder;

  constructor(request: HubRequest, latencyMs: () => number) {
    this.#encoder = new ConverseStreamEncoder(context(request), latencyMs);
  }

  push(frame: Frame, out: { text: string; error: Extract<HubEvent, { type: 'error' }> | null }): void {
    this.#each(this.#decoder.push(frame), out);
  }

  end(out: { text: string; error: Extract<HubEvent, { type: 'error' }> | null }): void {
    this.#each(this.#decoder.end(), out);
  }

  #each(events: HubEvent[], out: { text: string; error: Extract<HubEvent, { type: 'error' }> | null }): void {
    for (const ev of events) {
      if (ev.type === 'error') out.error = ev;
      out.text += this.#encoder.push(ev);
    }
  }
}
