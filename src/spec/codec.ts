// What each dialect folder gives the hub: its client side (decode a caller's request, encode the reply
// and stream back) and its upstream side (encode a request for that upstream, decode what it answers).
// A translated exchange is one client side joined to one upstream side through the hub form
// (hub/translated-exchange.ts); translate/exchange-for.ts is the one switch that picks pass-through or the hub.
// Contract: every function here is pure (no I/O); one decoder or encoder instance serves one request and
// keeps its stream state in typed fields. Request decoders throw TranslationError for what the form
// cannot hold; request encoders report what they changed or left out in `adjustments` (sent to the caller
// as `x-modelgate-adjusted`). Stream decoders follow the event contract of events.ts; stream encoders
// get those events in order, with a `usage` event carrying the billed usage just before `finish`.
import type { Frame } from './framing.ts';
import type { HubEvent } from './events.ts';
import type { HubDialect, HubReply, HubRequest } from './form.ts';

export interface ClientReplyContext {
  /** The model name the caller asked for: every reply, chunk and event shows it. */
  model: string;
  /** Unix seconds, the gateway's clock. */
  created: number;
  /** The decoded request, so an encoder can restore what the hub carried for it (custom tools, JSON mode). */
  request: HubRequest;
  /**
   * The dialect of the upstream that answers: the family its reasoning's signatures belong to, so a
   * stream encoder knows whether its caller reads them as they are or in a token (reasoning-carrier.ts).
   */
  origin?: HubDialect;
  /** Prompt tokens counted before the call, for streams that must show them before the upstream does. */
  promptEstimate: () => number;
  /** Milliseconds since the request arrived, where the reply reports it (Bedrock Converse's `metrics`). */
  latencyMs?: () => number;
}

export interface ClientStreamEncoder {
  /** Client SSE text for one hub event ('' when nothing is to be sent yet). */
  push(ev: HubEvent): string;
  /** Responses API: the whole response object the stream ended with (JSON text), which the gateway stores. */
  final?(): string | null;
}

export interface ClientSide {
  readonly dialect: HubDialect;
  /**
   * Its tool calls carry the signature an upstream made them with (Gemini's `thoughtSignature` beside a
   * functionCall): the caller sends it back itself. Absent: the hub keeps it for the caller's next turn.
   */
  readonly carriesCallSignatures?: boolean;
  /**
   * Pass-through of this dialect to an upstream of its own: removes, in place, the reasoning the gateway
   * carried in its tokens for another provider (reasoning-carrier.ts); the number of pieces removed. Run
   * only after the upstream refused a body holding such tokens, so a body that passes costs nothing.
   */
  dropCarriedReasoning?(body: Record<string, unknown>): number;
  /** Throws TranslationError (a 400 naming the field) for what has no faithful form in the hub. */
  /** `call`: what the path says of the request (Gemini names streaming there, not in the body). */
  decodeRequest(body: Record<string, unknown>, call?: { stream: boolean }): HubRequest;
  encodeReply(reply: HubReply, ctx: ClientReplyContext): string;
  streamEncoder(ctx: ClientReplyContext): ClientStreamEncoder;
}

/** What a deployment says about its upstream that changes how a request is written for it. */
export interface UpstreamOptions {
  upstreamModel: string;
  defaultMaxTokens: number;
  /** Parameters the deployment's model refuses: left out and named in `x-modelgate-adjusted`. */
  refusedParams: readonly string[];
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  structuredOutput?: 'tool' | 'native';
  /**
   * OpenAI-style upstreams: the `prompt_cache_key` to send (the caller's, else its agent session's), so
   * one session's requests share the upstream's prompt cache.
   */
  promptCacheKey?: string;
  /**
   * The caller's key id: what the hub keeps for a caller between requests (Gemini's thought signatures)
   * is kept per key, and one key never reads another's.
   */
  owner?: string;
  /**
   * The signatures kept for the request's tool calls whose caller could not carry them, by call id: only
   * those this upstream model made for this key (spec/call-signatures.ts).
   */
  callSignatures?: ReadonlyMap<string, string>;
}

export interface EncodedRequest {
  body: string;
  /** What was changed or left out, for `x-modelgate-adjusted`. */
  adjustments: string[];
  /** What the reply decoder must know of how the request was written (a JSON-mode tool's name, …). */
  replyState: unknown;
}

export interface UpstreamStreamDecoder {
  /** The hub events one upstream frame stands for (often none or one): an SSE event, or what the provider's own framing yields. */
  push(ev: Frame): HubEvent[];
  /** The upstream body ended: an `error` event if it stopped before its normal end. */
  end(): HubEvent[];
}

export interface UpstreamSide {
  readonly dialect: HubDialect;
  /**
   * Its tool calls come signed (tool-call-start's `signature`) and the model wants each signature back
   * with its call on the next turn (Gemini's thought signatures): the hub keeps them for callers that
   * cannot carry them and hands them back in `UpstreamOptions.callSignatures`.
   */
  readonly signsCalls?: boolean;
  encodeRequest(req: HubRequest, opts: UpstreamOptions): EncodedRequest;
  decodeReply(body: Record<string, unknown>, replyState: unknown): HubReply;
  streamDecoder(replyState: unknown): UpstreamStreamDecoder;
}
