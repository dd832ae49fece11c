// The stage contract: what a stage (redaction, a guardrail, a cache) may do to one request, as a list of
// optional hooks the pipeline runs in order (stages/index.ts holds the list). A stage sees the texts of
// the request and the reply in the caller's own dialect, as a list it may rewrite in place, and a
// dialect-neutral (hub) view decoded only when it asks. With no stage configured for a request nothing
// of this runs: the pipeline tests one field for null and passes the bytes through as before.
import type { z } from 'zod';
import type { Dialect } from '../core/dialect.ts';
import type { HubReply, HubRequest } from '../spec/form.ts';

/** Where a stage reports what it did: per rule, to the usage row's `redactions` and modelgate_redactions_total. */
export interface StageCounter {
  /** `n` occurrences of `rule` were masked (or, for a refusal, found). */
  count(rule: string, n: number): void;
}

/** Texts of one body (prompt parts, reply content) a stage may read and replace. */
export interface TextsContext extends StageCounter {
  /** The caller's dialect: the texts are in its fields. */
  readonly dialect: Dialect;
  /** The body's text parts in order (message contents, system prompt, instructions, embedding input). */
  readonly texts: readonly string[];
  /** Replaces text `i`; what goes on (the upstream request, the caller's reply) carries the new text. */
  setText(i: number, text: string): void;
}

/** A request before routing: its texts, and the hub form when a stage needs to read more. */
export interface RequestContext extends TextsContext {
  /** The body as the caller sent it, parsed: read it, change texts only through setText. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The request in the hub form, decoded by the dialect's client decoder on first call. */
  hub(): HubRequest;
}

/** A whole (non-streamed) reply before it goes to the caller. */
export interface ReplyContext extends TextsContext {
  /** The reply in the hub form, decoded on first call. */
  hub(): HubReply;
}

/**
 * One streamed text channel (a choice, a content block) of one reply. `push` gets each text delta in
 * order and returns what to send for it now (it may hold back a tail that could still become a match);
 * `flush` returns what was held back, at the channel's end.
 */
export interface StreamTextFilter {
  push(delta: string): string;
  flush(): string;
}

/** A stage configured for a model: the hooks it has. */
export interface Stage {
  readonly name: string;
  /** Before routing and admission: rewrite prompt texts, or refuse by throwing a GatewayError. */
  beforeRouting?(ctx: RequestContext): void;
  /** A non-streamed reply (and a stream's whole-text events, such as Responses' `*.done`). */
  afterReply?(ctx: ReplyContext): void;
  /** Per streamed text channel: a filter whose state lasts across events (matches across chunk boundaries). */
  onStreamEvent?(counter: StageCounter): StreamTextFilter;
}

/** A kind of stage, one folder under src/stages/ and one line in stages/index.ts. */
export interface StageDefinition<Block = unknown> {
  /** Its config block's key, at the top level and per model (`redact`). */
  readonly key: string;
  /** The block's schema: config/schema.ts takes it into the top level and `models[]`. */
  readonly schema: z.ZodType<Block>;
  /** Built once at start for each model from the top-level and the model's blocks; null = not for this model. */
  build(top: Block | undefined, model: Block | undefined): Stage | null;
}
