// chat.completion.chunk SSE from an OpenAI-compatible upstream → hub events. The hub's blocks never
// overlap (events.ts), while chat may interleave parallel tool calls: calls stream live while they come
// one after another; a call that starts while the open one's arguments are not yet a complete JSON value
// is buffered and emitted whole once the open one completes, so nothing is dropped or duplicated. Text or
// reasoning that arrives while a call is still incomplete is held the same way and follows the call, and
// a call whose name comes after its first fragment starts once the name is known. One per request.
import { noteServedTier } from '../../core/usage.ts';
import type { Frame } from '../../spec/framing.ts';
import { isObject, num, str, tryParseJson, type JsonObject } from '../../core/json.ts';
import type { UpstreamStreamDecoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import { readUpstreamError } from '../../spec/upstream-error.ts';
import type { ChatReplyState } from './encode-request.ts';
import { statusOfStreamError } from './errors.ts';
import { hubFinishOf } from './finish-reasons.ts';
import { plainContentDelta } from './plain-content-delta.ts';
import { usageFromOpenAi } from './usage.ts';

interface ToolState {
  id: string;
  name: string;
  args: string;
  /** Hub block index once started; null while buffered. */
  index: number | null;
  closed: boolean;
}

type Open = { kind: 'text' | 'reasoning'; index: number } | { kind: 'tool'; index: number; tool: ToolState };

const NONE: HubEvent[] = [];

export class ChatStreamDecoder implements UpstreamStreamDecoder {
  readonly #stopSequences: readonly string[];
  /** Characters of text to keep for matching a stop sequence at the end (the longest one's length). */
  readonly #tailKeep: number;
  readonly #tools = new Map<number, ToolState>();
  readonly #pending: ToolState[] = [];
  /** Text and reasoning held while a tool call is incomplete, in arrival order. */
  #held: Array<{ kind: 'text' | 'reasoning'; text: string }> = [];
  #open: Open | null = null;
  #nextIndex = 0;
  #started = false;
  #finish: string | null = null;
  #matched: unknown = null;
  #textTail = '';
  #ended = false;
  #lateFragments = 0;
  #out: HubEvent[] = [];

  constructor(state: unknown) {
    this.#stopSequences = (state as ChatReplyState | undefined)?.stopSequences ?? [];
    this.#tailKeep = Math.max(0, ...this.#stopSequences.map((s) => s.length));
  }

  /** Argument fragments for a call whose block had already closed (an upstream bug; counted, not sent). */
  get lateFragments(): number {
    return this.#lateFragments;
  }

  push(ev: Frame): HubEvent[] {
    if (this.#ended) return NONE;
    const raw = ev.data.trim();
    if (raw.length === 0) return NONE;
    const out: HubEvent[] = (this.#out = []);
    if (raw === '[DONE]') {
      this.#start();
      this.#complete();
      return out;
    }
    const quoted = plainContentDelta(raw);
    if (quoted !== null) {
      // The common token chunk, read without parsing it.
      this.#start();
      const text = quoted.slice(1, -1);
      if (text.length === 0) return out;
      this.#noteText(text);
      if (this.#open?.kind !== 'text' && this.#mustHold()) this.#hold('text', text);
      else {
        this.#ensure('text');
        out.push({ type: 'text-delta', index: (this.#open as Open).index, text, json: quoted });
      }
      return out;
    }
    const data = tryParseJson(raw);
    if (!isObject(data))
      return this.#fail(500, JSON.stringify({ error: { message: 'upstream sent a malformed stream chunk' } }));
    if (data.error !== undefined && data.error !== null) return this.#fail(statusOfStreamError(data.error), raw);
    this.#start();
    const usage = usageFromOpenAi(data.usage);
    if (usage !== undefined) noteServedTier(usage, data.service_tier);
    if (usage !== undefined) out.push({ type: 'usage', usage });
    const choice = Array.isArray(data.choices)
      ? data.choices.find((c) => isObject(c) && (c.index ?? 0) === 0)
      : undefined;
    if (!isObject(choice)) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning) ?? '';
    if (reasoning.length > 0) this.#content('reasoning', reasoning);
    const refusal = str(delta.refusal) ?? '';
    if (refusal.length > 0) this.#finish ??= 'content_filter';
    for (const text of [str(delta.content) ?? '', refusal]) {
      if (text.length === 0) continue;
      this.#noteText(text);
      this.#content('text', text);
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((frag: unknown, i) => {
        if (isObject(frag)) this.#toolFragment(frag, i);
      });
      this.#drain();
    }
    const finish = str(choice.finish_reason);
    if (finish !== undefined) {
      if (this.#finish !== 'content_filter') this.#finish = finish;
      this.#matched = choice.stop_reason ?? null;
      this.#closeOpen();
      this.#flushPending();
      this.#closeOpen();
    }
    return out;
  }

  /** The upstream ended. After a finish_reason that is a normal end; before one, an error. */
  end(): HubEvent[] {
    if (this.#ended) return NONE;
    if (this.#finish === null)
      return this.#fail(502, JSON.stringify({ error: { message: 'upstream stream ended before completion' } }));
    const out: HubEvent[] = (this.#out = []);
    this.#start();
    this.#complete();
    return out;
  }

  #toolFragment(frag: JsonObject, position: number): void {
    const key = num(frag.index) ?? position;
    const fn = isObject(frag.function) ? frag.function : {};
    const args = str(fn.arguments) ?? '';
    let tool = this.#tools.get(key);
    if (tool === undefined) {
      tool = { id: str(frag.id) ?? '', name: str(fn.name) ?? '', args: '', index: null, closed: false };
      this.#tools.set(key, tool);
      // A call without its name yet waits: a block's start carries the name and cannot be amended.
      if (this.#pending.length > 0 || tool.name.length === 0 || this.#openToolIncomplete()) this.#pending.push(tool);
      else {
        this.#closeOpen();
        this.#startTool(tool);
      }
    } else if (tool.name.length === 0 && str(fn.name) !== undefined) {
      tool.name = str(fn.name) ?? '';
    }
    if (args.length > 0 && tool.closed) this.#lateFragments++;
    else if (args.length > 0) {
      tool.args += args;
      if (this.#open?.kind === 'tool' && this.#open.tool === tool)
        this.#out.push({ type: 'tool-call-delta', index: this.#open.index, input: args });
    }
  }

  /** After a chunk's tool fragments: start buffered calls whose turn has come, then held text. */
  #drain(): void {
    while (this.#pending.length > 0 && this.#pending[0].name.length > 0 && !this.#openToolIncomplete()) {
      this.#closeOpen();
      this.#startTool(this.#pending.shift() as ToolState);
    }
    if (this.#held.length > 0 && !this.#mustHold()) this.#releaseHeld();
  }

  #openToolIncomplete(): boolean {
    const open = this.#open;
    return open?.kind === 'tool' && !isCompleteJson(open.tool.args);
  }

  /** Text now would end a tool call that may still get arguments, or jump ahead of held text or calls. */
  #mustHold(): boolean {
    return this.#held.length > 0 || this.#pending.length > 0 || this.#openToolIncomplete();
  }

  /** Text or reasoning: streamed into its block, or held until the calls before it are complete. */
  #content(kind: 'text' | 'reasoning', text: string): void {
    if (this.#open?.kind !== kind && this.#mustHold()) this.#hold(kind, text);
    else this.#streamContent(kind, text);
  }

  #streamContent(kind: 'text' | 'reasoning', text: string): void {
    this.#ensure(kind);
    const index = (this.#open as Open).index;
    this.#out.push(kind === 'text' ? { type: 'text-delta', index, text } : { type: 'reasoning-delta', index, text });
  }

  #hold(kind: 'text' | 'reasoning', text: string): void {
    const last = this.#held.at(-1);
    if (last?.kind === kind) last.text += text;
    else this.#held.push({ kind, text });
  }

  #releaseHeld(): void {
    for (const { kind, text } of this.#held.splice(0)) this.#streamContent(kind, text);
  }

  #startTool(tool: ToolState): void {
    const index = this.#nextIndex++;
    tool.index = index;
    this.#open = { kind: 'tool', index, tool };
    this.#out.push({ type: 'tool-call-start', index, id: tool.id, name: tool.name });
    if (tool.args.length > 0) this.#out.push({ type: 'tool-call-delta', index, input: tool.args });
  }

  #ensure(kind: 'text' | 'reasoning'): void {
    if (this.#open?.kind === kind) return;
    this.#closeOpen();
    this.#flushPending();
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    this.#out.push(kind === 'text' ? { type: 'text-start', index } : { type: 'reasoning-start', index });
  }

  #closeOpen(): void {
    const open = this.#open;
    if (open === null) return;
    this.#open = null;
    if (open.kind === 'tool') {
      open.tool.closed = true;
      this.#out.push({ type: 'tool-call-end', index: open.index });
    } else
      this.#out.push(
        open.kind === 'text' ? { type: 'text-end', index: open.index } : { type: 'reasoning-end', index: open.index },
      );
  }

  /** The stream is finishing: buffered calls go out as they are, then held text. */
  #flushPending(): void {
    for (const tool of this.#pending.splice(0)) {
      this.#closeOpen();
      this.#startTool(tool);
      this.#closeOpen();
    }
    this.#releaseHeld();
  }

  #noteText(text: string): void {
    const keep = this.#tailKeep;
    if (keep > 0) this.#textTail = (this.#textTail + text).slice(-keep);
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#out.push({ type: 'start' });
  }

  #complete(): void {
    this.#closeOpen();
    this.#flushPending();
    this.#closeOpen();
    const finish = hubFinishOf({
      finish: this.#finish,
      text: this.#textTail,
      stopSequences: this.#stopSequences,
      matched: this.#matched,
      toolCalls: this.#tools.size > 0,
    });
    this.#ended = true;
    this.#out.push(
      finish.stopSequence === undefined
        ? { type: 'finish', reason: finish.reason }
        : { type: 'finish', reason: finish.reason, stopSequence: finish.stopSequence },
    );
  }

  #fail(status: number, bodyText: string): HubEvent[] {
    this.#ended = true;
    const err = readUpstreamError('chat', status, bodyText);
    const ev: HubEvent = {
      type: 'error',
      status,
      errorType: err.type ?? 'server_error',
      message: err.message ?? `upstream returned HTTP ${status}`,
      from: 'chat',
    };
    if (err.code !== undefined) ev.code = err.code;
    if (err.param !== undefined) ev.param = err.param;
    return [ev];
  }
}

function isCompleteJson(text: string): boolean {
  return text.trim().length > 0 && tryParseJson(text) !== undefined;
}
