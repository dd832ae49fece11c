// The vocabulary of the mock upstream: its options, what it records about each request, and the faults a
// test can order for a single request.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** The wire format of a request's path; `responses` (POST /v1/responses) answers errors in OpenAI's shape. */
export type MockDialect = 'openai' | 'anthropic' | 'responses';

export interface MockUpstreamOptions {
  /** Reply text, or a function of the request. Default `DEFAULT_REPLY_TEXT`. */
  replyText?: string | ((req: RecordedRequest) => string);
  /** Text sent before a tool call (Anthropic: its own text block). Default none. */
  toolPreambleText?: string;
  /**
   * Call only the tool of this name, when the request offers it (else answer with text); default the first
   * tool offered (or the one `tool_choice` names). For agents that send dozens of tools.
   */
  toolName?: string;
  /** Tool input the mock answers with; default built from the first tool's JSON schema. */
  toolArguments?: Record<string, unknown>;
  /** Content (or tool-argument) deltas per streamed reply; fewer when the text is shorter. Default 3. */
  chunkCount?: number;
  /** Delay before the response headers, in ms. Default 0. */
  latencyMs?: number;
  /** Delay between streamed events, in ms. Default 0. */
  chunkDelayMs?: number;
  /** Reported prompt tokens served from cache (OpenAI cached_tokens, Anthropic cache_read_input_tokens). */
  cacheReadTokens?: number;
  /** Reported prompt tokens written to cache (Anthropic cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** Ids served by `GET /v1/models`. Default ['mock-model']. */
  models?: string[];
}

export type RequestOutcome = 'pending' | 'finished' | 'aborted';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The raw request target, query included. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The parsed body, or undefined when it was empty or not JSON. */
  json: unknown;
  /** 'aborted' when the client closed the connection before the response ended. Updated in place. */
  outcome: RequestOutcome;
}

/** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
export type HeaderMap = Record<string, string>;

/** Answer with this status. Without `body`, a dialect-shaped error body for the status is sent. */
export interface StatusFault {
  kind: 'status';
  status: number;
  /** A string is sent as text/plain; anything else as JSON. */
  body?: unknown;
  headers?: HeaderMap;
}

export type Fault =
  | StatusFault
  /** Reset the TCP connection (RST) before any response byte. */
  | { kind: 'reset' }
  /** Never answer; the socket stays open until the client or `close()` ends it. */
  | { kind: 'hang-before-headers' }
  /** Send 200 headers (and, when streaming, the first `afterEvents` events), then go silent. */
  | { kind: 'hang-after-headers'; afterEvents?: number }
  /** Send the first `afterEvents` events (non-streaming: half the body), then destroy the socket. */
  | { kind: 'cut-stream'; afterEvents: number }
  /** Send `afterEvents` good events, then `text` (default an unparseable data line), then end. */
  | { kind: 'malformed-sse'; afterEvents?: number; text?: string }
  /**
   * Streaming: `afterEvents` (default 2) good events, then an in-stream error in the request's dialect
   * (OpenAI `data: {"error":…}`, Anthropic `event: error`), then the end. Non-streaming: that error as a
   * JSON body with `status` (default 500 OpenAI, 529 Anthropic, which also picks the Anthropic error type).
   */
  | { kind: 'stream-error'; afterEvents?: number; status?: number; message?: string }
  /** 200 with a body that is not JSON (default an HTML proxy page). */
  | { kind: 'non-json-200'; body?: string; contentType?: string }
  /** The normal response, written `chunkBytes` (default 8) bytes at a time every `intervalMs`. */
  | { kind: 'trickle'; intervalMs: number; chunkBytes?: number }
  /** A 103 Early Hints (as a CDN in front of the upstream sends), then the normal answer. */
  | { kind: 'early-hints' }
  /** A streamed request answered with the non-streamed JSON body, as an upstream ignoring `stream` does. */
  | { kind: 'ignore-stream' }
  /** The normal answer compressed with `content-encoding`, although the request did not ask for it. */
  | { kind: 'encoded'; encoding: 'gzip' | 'br' }
  /** Full control; the request body has already been read. */
  | { kind: 'custom'; handle: (ctx: CustomFaultContext) => void | Promise<void> };

export interface CustomFaultContext {
  req: IncomingMessage;
  res: ServerResponse;
  recorded: RecordedRequest;
  dialect: MockDialect;
}

export type Behaviour = (req: RecordedRequest) => Fault | undefined;

export interface WaitOptions {
  /** Default 2000 ms. */
  timeoutMs?: number;
}

export interface MockUpstream {
  /** `http://127.0.0.1:PORT` (no trailing slash). OpenAI base URL is `url + '/v1'`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order (recorded once its body is read). */
  readonly requests: RecordedRequest[];
  /** Queue a fault for the next request that has none; consumed one per request. */
  enqueue(...faults: Fault[]): void;
  /** Consulted when the queue is empty; return undefined for normal behaviour. */
  setBehaviour(fn: Behaviour | undefined): void;
  /** Change options for later requests. */
  configure(options: MockUpstreamOptions): void;
  openSockets(): number;
  /** Requests whose response has neither finished nor been aborted. */
  inFlight(): number;
  waitForRequests(n: number, options?: WaitOptions): Promise<void>;
  waitForSocketsClosed(options?: WaitOptions): Promise<void>;
  /** Resolves when `predicate` holds, re-checked on every request, socket and response event. */
  waitFor(predicate: () => boolean, description: string, options?: WaitOptions): Promise<void>;
  /** Forget requests, faults and behaviour; restore the options given at start. Sockets stay. */
  reset(): void;
  /** Stop listening and destroy every socket. */
  close(): Promise<void>;
}
