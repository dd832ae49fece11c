// Reasoning that only its own provider can read (an Anthropic thinking signature or redacted_thinking
// data, OpenAI's encrypted_content, a Gemini thought signature) rides to a caller of another dialect in
// the gateway's own opaque token, placed where that caller's dialect keeps opaque reasoning (Responses
// `encrypted_content`, chat `thinking_blocks[].signature` and `reasoning_signature`, Anthropic
// `signature`, Gemini `thoughtSignature`), which clients send back untouched. The caller's decoder
// unwraps it into the part it was, with its origin; every upstream encoder sends reasoning only to the
// family that wrote it (form.ts ReasoningPart), byte for byte, and leaves it out anywhere else.
// Token: `mgw1.<family>.<base64url of JSON>`, family `anthropic`, `openai` or `gemini`.
import type { HubDialect, ReasoningPart } from './form.ts';
import type { HubEvent } from './events.ts';
import { TranslationError } from './translation-error.ts';

export const CARRIER_PREFIX = 'mgw1.';

/** The upstream dialects whose reasoning is opaque, and the family a token names for each. */
const FAMILY_OF: Partial<Record<HubDialect, string>> = { messages: 'anthropic', responses: 'openai', gemini: 'gemini' };
const DIALECT_OF: Record<string, HubDialect> = { anthropic: 'messages', openai: 'responses', gemini: 'gemini' };

/** The token's JSON: the part's text and whatever of it is opaque, each as the provider wrote it. */
interface Carried {
  t: string;
  s?: string;
  r?: string;
  e?: string;
  i?: string;
  /** The dialect, in tokens written before the family named it in the prefix. */
  o?: HubDialect;
}

/** The token a reasoning part goes to a caller of another dialect in; undefined when nothing of it is opaque. */
export function carrierOf(part: ReasoningPart): string | undefined {
  const family = part.origin === undefined ? undefined : FAMILY_OF[part.origin];
  if (family === undefined) return undefined;
  const signed = part.signature !== undefined && part.signature.length > 0;
  if (!signed && part.redacted === undefined && part.encrypted === undefined) return undefined;
  const c: Carried = { t: part.text };
  if (signed) c.s = part.signature;
  if (part.redacted !== undefined) c.r = part.redacted;
  if (part.encrypted !== undefined) c.e = part.encrypted;
  if (part.id !== undefined) c.i = part.id;
  return `${CARRIER_PREFIX}${family}.${Buffer.from(JSON.stringify(c)).toString('base64url')}`;
}

/** Whether a client's opaque reasoning value is the gateway's own token. */
export function isCarrier(value: string): boolean {
  return value.startsWith(CARRIER_PREFIX);
}

/**
 * The part a token carries, as it was when the gateway wrote it (origin set), or null when `value` is
 * not a token. A token that is damaged (cut, edited) is refused, naming `param`: sent on, it would reach
 * a provider as a signature it never wrote.
 */
export function uncarry(value: string, param: string): ReasoningPart | null {
  if (!isCarrier(value)) return null;
  const rest = value.slice(CARRIER_PREFIX.length);
  const dot = rest.indexOf('.');
  let origin: HubDialect | undefined = dot < 0 ? undefined : DIALECT_OF[rest.slice(0, dot)];
  let c: Carried | null = null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(rest.slice(dot + 1), 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Carried).t === 'string')
      c = parsed as Carried;
  } catch {
    c = null;
  }
  // A token without a family in its prefix names its dialect inside.
  if (dot < 0 && c !== null && typeof c.o === 'string' && FAMILY_OF[c.o] !== undefined) origin = c.o;
  if (c === null || origin === undefined)
    throw new TranslationError(
      param,
      `${param} holds a damaged reasoning token of this gateway's (${CARRIER_PREFIX}…)`,
    );
  const part: ReasoningPart = { type: 'reasoning', text: c.t, origin };
  if (typeof c.s === 'string') part.signature = c.s;
  if (typeof c.r === 'string') part.redacted = c.r;
  if (typeof c.e === 'string') part.encrypted = c.e;
  if (typeof c.i === 'string') part.id = c.i;
  return part;
}

/**
 * A streamed reasoning block gathered for a client encoder whose caller gets reasoning of another
 * dialect as a token: the token can be written only once the block has ended (its signature may come
 * last). One per stream encoder.
 */
export class StreamedReasoning {
  readonly #origin: HubDialect | undefined;
  #part: ReasoningPart | null = null;

  constructor(origin: HubDialect | undefined) {
    this.#origin = origin;
  }

  start(ev: Extract<HubEvent, { type: 'reasoning-start' }>): void {
    const part: ReasoningPart = { type: 'reasoning', text: '' };
    if (this.#origin !== undefined) part.origin = this.#origin;
    if (ev.id !== undefined) part.id = ev.id;
    if (ev.redacted !== undefined) part.redacted = ev.redacted;
    if (ev.encrypted !== undefined) part.encrypted = ev.encrypted;
    this.#part = part;
  }

  text(text: string): void {
    if (this.#part !== null) this.#part.text += text;
  }

  signature(signature: string): void {
    if (this.#part !== null) this.#part.signature = (this.#part.signature ?? '') + signature;
  }

  /** The block that ended, or null when none was open. */
  end(): ReasoningPart | null {
    const part = this.#part;
    this.#part = null;
    return part;
  }
}

/**
 * The token's opening as it appears in a JSON text: a body without it holds no token, which a
 * pass-through checks only after its upstream refused the body.
 */
export const CARRIER_IN_JSON = `"${CARRIER_PREFIX}`;

/** Whether a field's value is one of the gateway's tokens. */
export function isCarried(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(CARRIER_PREFIX);
}
