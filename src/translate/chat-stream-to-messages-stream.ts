// Direction 2, stream: OpenAI chat.completion.chunk SSE from the upstream → Anthropic message stream events.
// Blocks get indexes 0,1,2… in the order they start and never overlap. Tool calls stream live while they come
// one after another; when an upstream interleaves several calls, a call that starts while the open one's
// arguments are not yet a complete JSON value is buffered and emitted whole once the open one completes, so
// nothing is dropped or duplicated. Text or reasoning that arrives while a call is still incomplete is held
// the same way and follows the call (an Anthropic block, once stopped, cannot take more input), and a call
// whose name comes after its first fragment starts once the name is known. One instance per request.
import type { SseEvent } from '../core/sse.ts';
import { encodeSse } from '../core/sse.ts';
import { outputTokensForChars, type Usage } from '../core/usage.ts';
import { newMessageId, toAnthropicToolId } from './ids.ts';
import { isObject, isVerbatimJsonText, num, str, tryParseJson, type JsonObject } from './narrow.ts';
import { stopReasonFor } from './stop-reasons.ts';
import { upstreamErrorToDialect } from './upstream-error.ts';
import { deltaUsageToAnthropic, usageFromOpenAi, usageToAnthropic } from './usage-map.ts';

export interface ChatStreamToMessagesOptions {
  /** The model name the client asked for. */
  model: string;
  /** Prompt tokens counted before the upstream answered; sent in message_start (peers send 0). */
  inputTokens: number;
  /** The client's stop_sequences, to report which one ended the text. */
  stopSequences?: string[];
}

interface ToolState {
  id: string;
  name: string;
  args: string;
  /** Anthropic block index once started; null while buffered. */
  blockIndex: number | null;
  closed: boolean;
}

type Open = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; tool: ToolState };

export class ChatStreamToMessagesStream {
  readonly #id = newMessageId();
  readonly #model: string;
  readonly #inputEstimate: number;
  readonly #stopSequences: string[];
  /** Characters of text to keep for matching a stop sequence at the end (the longest one's length). */
  readonly #tailKeep: number;
  readonly #tools = new Map<number, ToolState>();
  readonly #pending: ToolState[] = [];
  /** Text and reasoning held while a tool call is incomplete, in arrival order. */
  #held: Array<{ kind: 'text' | 'thinking'; text: string }> = [];
  #open: Open | null = null;
  #nextIndex = 0;
  #started = false;
  #finish: string | null = null;
  #matched: unknown = null;
  #textTail = '';
  #outputChars = 0;
  #upstreamUsage: Usage | null = null;
  #lateFragments = 0;
  #finished = false;
  #failed = false;

  constructor(opts: ChatStreamToMessagesOptions) {
    this.#model = opts.model;
    this.#inputEstimate = Math.max(1, Math.round(opts.inputTokens));
    this.#stopSequences = opts.stopSequences ?? [];
    this.#tailKeep = Math.max(0, ...this.#stopSequences.map((s) => s.length));
  }

  /** The upstream's usage once its usage chunk arrived; until then the estimate sent to the client. */
  get usage(): Usage {
    return this.#upstreamUsage !== null ? { ...this.#upstreamUsage } : this.#estimatedUsage();
  }

  get finished(): boolean {
    return this.#finished;
  }

  get failed(): boolean {
    return this.#failed;
  }

  /** Argument fragments for a tool call whose block had already closed (an upstream bug; counted, not sent). */
  get lateFragments(): number {
    return this.#lateFragments;
  }

  push(ev: SseEvent): string {
    if (this.#finished) return '';
    const raw = ev.data.trim();
    if (raw.length === 0) return '';
    if (raw === '[DONE]') return this.#start() + this.#complete();
    const quoted = plainContentDelta(raw);
    if (quoted !== null) {
      // The common token chunk, read without parsing it; the output is what the general path writes.
      const text = quoted.slice(1, -1);
      if (text.length === 0) return this.#start();
      this.#noteText(text);
      if (this.#open?.kind !== 'text' && this.#mustHold()) return this.#start() + this.#hold('text', text);
      return this.#start() + this.#ensure('text') + this.#textDelta(quoted);
    }
    const data = tryParseJson(raw);
    if (!isObject(data)) return this.#fail(500, JSON.stringify({ error: { message: 'upstream sent a malformed stream chunk' } }));
    if (data.error !== undefined && data.error !== null) return this.#fail(statusOfStreamError(data.error), raw);
    let out = this.#start();
    const usage = usageFromOpenAi(data.usage);
    if (usage !== undefined) this.#upstreamUsage = usage;
    const choice = Array.isArray(data.choices) ? data.choices.find((c) => isObject(c) && (c.index ?? 0) === 0) : undefined;
    if (!isObject(choice)) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning) ?? '';
    if (reasoning.length > 0) {
      // Reasoning is output the upstream bills: a stream cut while the model thinks still cost it.
      this.#outputChars += reasoning.length;
      out += this.#content('thinking', reasoning);
    }
    const refusal = str(delta.refusal) ?? '';
    if (refusal.length > 0) this.#finish ??= 'content_filter';
    for (const text of [str(delta.content) ?? '', refusal]) {
      if (text.length === 0) continue;
      this.#noteText(text);
      out += this.#content('text', text);
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((frag: unknown, i) => {
        if (isObject(frag)) out += this.#toolFragment(frag, i);
      });
      out += this.#drain();
    }
    const finish = str(choice.finish_reason);
    if (finish !== undefined) {
      if (this.#finish !== 'content_filter') this.#finish = finish;
      this.#matched = choice.stop_reason ?? null;
      out += this.#closeOpen() + this.#flushPending() + this.#closeOpen();
    }
    return out;
  }

  /** The upstream ended. After a finish_reason that is a normal end; before one, an `error` event. */
  end(): string {
    if (this.#finished) return '';
    if (this.#finish !== null) return this.#start() + this.#complete();
    return this.#fail(502, JSON.stringify({ error: { message: 'upstream stream ended before completion' } }));
  }

  #toolFragment(frag: JsonObject, position: number): string {
    const key = num(frag.index) ?? position;
    const fn = isObject(frag.function) ? frag.function : {};
    const args = str(fn.arguments) ?? '';
    let out = '';
    let tool = this.#tools.get(key);
    if (tool === undefined) {
      tool = { id: toAnthropicToolId(str(frag.id)), name: str(fn.name) ?? '', args: '', blockIndex: null, closed: false };
      this.#tools.set(key, tool);
      // A call without its name yet waits: content_block_start carries the name and cannot be amended.
      if (this.#pending.length > 0 || tool.name.length === 0 || this.#openToolIncomplete()) this.#pending.push(tool);
      else out += this.#closeOpen() + this.#startTool(tool);
    } else if (tool.name.length === 0 && str(fn.name) !== undefined) {
      tool.name = str(fn.name) ?? '';
    }
    if (args.length > 0) {
      this.#outputChars += args.length;
      if (tool.closed) this.#lateFragments++;
      else {
        tool.args += args;
        if (this.#open?.kind === 'tool' && this.#open.tool === tool) out += this.#delta({ type: 'input_json_delta', partial_json: args });
      }
    }
    return out;
  }

  /** After a chunk's tool fragments: start buffered calls whose turn has come, then held text. */
  #drain(): string {
    let out = '';
    while (this.#pending.length > 0 && this.#pending[0].name.length > 0 && !this.#openToolIncomplete()) {
      out += this.#closeOpen() + this.#startTool(this.#pending.shift() as ToolState);
    }
    if (this.#held.length > 0 && !this.#mustHold()) out += this.#releaseHeld();
    return out;
  }

  #openToolIncomplete(): boolean {
    const open = this.#open;
    return open?.kind === 'tool' && !isCompleteJson(open.tool.args);
  }

  /** Text now would stop a tool call that may still get arguments, or jump ahead of held text or calls. */
  #mustHold(): boolean {
    return this.#held.length > 0 || this.#pending.length > 0 || this.#openToolIncomplete();
  }

  /** Text or reasoning: streamed into its block, or held until the calls before it are complete. */
  #content(kind: 'text' | 'thinking', text: string): string {
    if (this.#open?.kind !== kind && this.#mustHold()) return this.#hold(kind, text);
    return this.#streamContent(kind, text);
  }

  #streamContent(kind: 'text' | 'thinking', text: string): string {
    return this.#ensure(kind) + this.#delta(kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text });
  }

  #hold(kind: 'text' | 'thinking', text: string): string {
    const last = this.#held.at(-1);
    if (last?.kind === kind) last.text += text;
    else this.#held.push({ kind, text });
    return '';
  }

  #releaseHeld(): string {
    let out = '';
    for (const { kind, text } of this.#held.splice(0)) out += this.#streamContent(kind, text);
    return out;
  }

  #startTool(tool: ToolState): string {
    const index = this.#nextIndex++;
    tool.blockIndex = index;
    this.#open = { kind: 'tool', index, tool };
    let out = this.#event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {}, caller: { type: 'direct' } },
    });
    if (tool.args.length > 0) out += this.#delta({ type: 'input_json_delta', partial_json: tool.args });
    return out;
  }

  #ensure(kind: 'text' | 'thinking'): string {
    if (this.#open?.kind === kind) return '';
    let out = this.#closeOpen() + this.#flushPending();
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    const block = kind === 'text' ? { type: 'text', text: '', citations: null } : { type: 'thinking', thinking: '', signature: '' };
    out += this.#event('content_block_start', { index, content_block: block });
    return out;
  }

  #closeOpen(): string {
    const open = this.#open;
    if (open === null) return '';
    if (open.kind === 'tool') open.tool.closed = true;
    this.#open = null;
    return this.#event('content_block_stop', { index: open.index });
  }

  /** The stream is finishing: buffered calls go out as they are, then held text. */
  #flushPending(): string {
    let out = '';
    for (const tool of this.#pending.splice(0)) out += this.#closeOpen() + this.#startTool(tool) + this.#closeOpen();
    return out + this.#releaseHeld();
  }

  #delta(delta: JsonObject): string {
    return this.#deltaEvent(JSON.stringify(delta));
  }

  /** A text_delta event for text already encoded as a JSON string (quotes included). */
  #textDelta(quoted: string): string {
    return this.#deltaEvent(`{"type":"text_delta","text":${quoted}}`);
  }

  #deltaEvent(deltaJson: string): string {
    if (this.#open === null) return '';
    // The event of every streamed token: written out directly rather than spread into a new object.
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.#open.index},"delta":${deltaJson}}\n\n`;
  }

  #noteText(text: string): void {
    this.#outputChars += text.length;
    const keep = this.#tailKeep;
    if (keep > 0) this.#textTail = (this.#textTail + text).slice(-keep);
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const usage = { ...this.#estimatedUsage(), outputTokens: 1 };
    return this.#event('message_start', {
      message: {
        id: this.#id,
        type: 'message',
        role: 'assistant',
        model: this.#model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: usageToAnthropic(usage),
      },
    });
  }

  #complete(): string {
    let out = this.#closeOpen() + this.#flushPending() + this.#closeOpen();
    const stop = stopReasonFor({ finish: this.#finish, text: this.#textTail, stopSequences: this.#stopSequences, matched: this.#matched });
    if (stop.stopReason === 'end_turn' && this.#tools.size > 0) stop.stopReason = 'tool_use';
    out += this.#event('message_delta', {
      delta: { stop_reason: stop.stopReason, stop_sequence: stop.stopSequence, stop_details: null, container: null },
      usage: deltaUsageToAnthropic(this.usage),
    });
    out += this.#event('message_stop', {});
    this.#finished = true;
    return out;
  }

  #fail(status: number, bodyText: string): string {
    const shaped = upstreamErrorToDialect({ upstreamKind: 'openai', clientDialect: 'anthropic', status, bodyText });
    this.#finished = true;
    this.#failed = true;
    return this.#event('error', { error: { type: shaped.type, message: shaped.message } });
  }

  #estimatedUsage(): Usage {
    return {
      inputTokens: this.#inputEstimate,
      outputTokens: outputTokensForChars(this.#outputChars),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
  }

  #event(type: string, body: JsonObject): string {
    return encodeSse(type, JSON.stringify({ type, ...body }));
  }
}

// Search anchors start after the opening quote: V8 searches several times slower for a pattern that
// starts with a character as common as '"'. A match inside a longer key only sends a chunk down the
// general path, never the other way.
const CONTENT_DELTA = 'delta":{"content":"';
/**
 * Keys that, outside the content string, mean the chunk needs the general path. Tool calls, reasoning
 * and refusals live in the delta, which must hold nothing but the content.
 */
const NOT_PLAIN = ['error"', 'usage":{', 'finish_reason":"'];

/**
 * The content of a chunk that carries nothing but text for choice 0 — `"delta":{"content":"…"}` with no
 * escapes in the text, no finish reason, usage object, tool call, reasoning, refusal or error, and no
 * other choice — as its JSON string (quotes included); null for every other chunk. Most streamed
 * tokens are such chunks, and this spares them a JSON.parse and a JSON.stringify each. Because the
 * text holds no backslash, it cannot hold a quote either, so every key searched for lies outside it.
 */
export function plainContentDelta(raw: string): string | null {
  const at = raw.indexOf(CONTENT_DELTA);
  if (at < 1 || raw.charCodeAt(at - 1) !== 34 || raw.lastIndexOf('delta"', at - 1) !== -1) return null;
  const open = at + CONTENT_DELTA.length - 1;
  const close = raw.indexOf('"', open + 1);
  if (close === -1 || raw.charCodeAt(close + 1) !== 125 /* } */) return null;
  // No escapes and no raw control characters (which JSON.parse would refuse): the slice is then
  // exactly what JSON.stringify writes for the text.
  if (!isVerbatimJsonText(raw, open + 1, close)) return null;
  for (const key of NOT_PLAIN) if (raw.includes(key)) return null;
  // One choice, and it is choice 0: a single "index" key, valued 0, and no second "delta".
  const index = raw.indexOf('index":');
  if (index === -1 || raw.indexOf('index":', index + 7) !== -1) return null;
  if (raw.charCodeAt(index + 7) !== 48 /* 0 */ || isDigit(raw.charCodeAt(index + 8))) return null;
  if (raw.indexOf('delta"', close) !== -1) return null;
  return raw.slice(open, close + 1);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isCompleteJson(text: string): boolean {
  return text.trim().length > 0 && tryParseJson(text) !== undefined;
}

/** OpenAI in-stream errors carry no status; the type or code hints at one. */
function statusOfStreamError(error: unknown): number {
  if (!isObject(error)) return 500;
  const hint = `${str(error.type) ?? ''} ${str(error.code) ?? ''}`;
  if (hint.includes('rate_limit')) return 429;
  if (hint.includes('invalid_request')) return 400;
  return num(error.status) ?? num(error.code) ?? 500;
}
