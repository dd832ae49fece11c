// A client face of the hub served over /v1/messages: the cloud routes whose wire is not Anthropic's own
// (Bedrock's Converse) are /v1/messages underneath, as the InvokeModel route is. The caller's body goes
// through the hub (the face's decoder, the Messages encoder) into the Messages body the rest of the gateway
// serves (keys, budgets, limits, stages, routing, every model translated where it is not Claude), and the
// Messages reply comes back through the hub (the Messages decoder, the face's encoder). What the Messages
// wire cannot carry is named in `adjusted` (sent as x-modelgate-adjusted). Names no dialect but Messages.
import { GatewayError } from '../core/errors.ts';
import { isObject } from '../core/json.ts';
import { UPSTREAM_SIDES } from '../registry.ts';
import type { ClientReplyContext, ClientSide, ClientStreamEncoder } from '../spec/codec.ts';
import type { HubEvent } from '../spec/events.ts';
import type { Frame } from '../spec/framing.ts';
import type { HubRequest } from '../spec/form.ts';
import { TranslationError } from '../spec/translation-error.ts';

/** The Messages version such a request is read and forwarded under. */
const VERSION = '2023-06-01';

const messages = UPSTREAM_SIDES.anthropic;

export interface ClientAsMessages {
  body: Record<string, unknown>;
  version: typeof VERSION;
  forward: Record<string, string>;
  /** What the Messages body leaves out of the caller's request. */
  adjusted: string[];
  /** The decoded request, for the reply's encoder. */
  request: HubRequest;
}

/** A caller's body in `client`'s dialect (the model from the path) as a /v1/messages body naming `model`. */
export function clientAsMessages(
  client: ClientSide,
  value: unknown,
  at: { model: string; stream: boolean; defaultMaxTokens: number },
): ClientAsMessages {
  if (!isObject(value))
    throw new GatewayError('invalid_request', { message: 'The request body must be a JSON object.' });
  try {
    const request = client.decodeRequest(value, { stream: at.stream });
    const encoded = messages.encodeRequest(request, {
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

/** The Messages reply state of a request written without JSON mode. */
const NO_JSON_MODE = { jsonMode: null };

function context(request: HubRequest, model: string, latencyMs: () => number): ClientReplyContext {
  // The reply is Messages text the gateway wrote: its signatures are Anthropic's, or tokens it wrote.
  return {
    model,
    created: Math.floor(Date.now() / 1000),
    request,
    origin: 'messages',
    promptEstimate: () => 0,
    latencyMs,
  };
}

/** A whole Messages reply (JSON text) in `client`'s shape. */
export function messagesReplyAs(
  client: ClientSide,
  text: string,
  at: { request: HubRequest; model: string; latencyMs: () => number },
): string {
  const reply = messages.decodeReply(JSON.parse(text) as Record<string, unknown>, NO_JSON_MODE);
  return client.encodeReply(reply, context(at.request, at.model, at.latencyMs));
}

export type StreamError = Extract<HubEvent, { type: 'error' }>;

/** What some frames of the Messages stream became: the client's stream text, and the error it ended with. */
export interface Retold {
  text: string;
  error: StreamError | null;
}

/**
 * A Messages stream's frames → `client`'s stream text; an error the stream ends with is handed back
 * rather than encoded, for the route's framing to write in its own way.
 */
export class MessagesStreamAs {
  readonly #decoder = messages.streamDecoder(NO_JSON_MODE);
  readonly #encoder: ClientStreamEncoder;

  constructor(client: ClientSide, at: { request: HubRequest; model: string; latencyMs: () => number }) {
    this.#encoder = client.streamEncoder(context(at.request, at.model, at.latencyMs));
  }

  push(frame: Frame, out: Retold): void {
    this.#each(this.#decoder.push(frame), out);
  }

  end(out: Retold): void {
    this.#each(this.#decoder.end(), out);
  }

  #each(events: HubEvent[], out: Retold): void {
    for (const ev of events) {
      if (ev.type === 'error') out.error = ev;
      else out.text += this.#encoder.push(ev);
    }
  }
}
