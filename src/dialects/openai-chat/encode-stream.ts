// Hub events → chat.completion.chunk SSE for a /v1/chat/completions caller. Tool calls are numbered by
// their own counter (0,1,2… in order), never by the block index, so text before tools does not offset
// them. Anthropic's thinking blocks, whole with their signatures, go once in a `thinking_blocks` delta
// before the finish (another provider's opaque reasoning too, as the gateway's token, also sent as the
// block's `reasoning_signature` when it ends), so a client that merges deltas by assignment (the OpenAI SDK) and one that appends
// both end with the same list. One per request.
import { encodeSse } from '../../core/sse.ts';
import { emptyUsage, type Usage } from '../../core/usage.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ClientReplyContext, ClientStreamEncoder } from '../../spec/codec.ts';
import type { HubEvent } from '../../spec/events.ts';
import { StreamedReasoning } from '../../spec/reasoning-carrier.ts';
import { thinkingBlockOf } from './encode-reply.ts';
import { shapeChatError } from './errors.ts';
import { HUB_TO_FINISH_REASON } from './finish-reasons.ts';
import { newChatCompletionId } from './ids.ts';
import { usageToOpenAi } from './usage.ts';
import type { ChatDelta, ChatThinkingBlock, FinishReason } from './wire.ts';

type ThinkingRecord = Extract<ChatThinkingBlock, { type: 'thinking' }>;

export class ChatStreamEncoder implements ClientStreamEncoder {
  readonly #id = newChatCompletionId();
  readonly #model: string;
  readonly #created: number;
  readonly #includeUsage: boolean;
  #started = false;
  #toolCount = 0;
  /** The open tool call's position in tool_calls, and whether it got arguments (`{}` is owed otherwise). */
  #tool = -1;
  #toolArgs = false;
  /** The open thinking block as it accumulates, listed in thinking_blocks. */
  #thinking: ThinkingRecord | null = null;
  readonly #thinkingBlocks: ChatThinkingBlock[] = [];
  /**
   * Reasoning of a provider other than Anthropic, gathered until its block ends: its opaque part goes
   * out as the gateway's token then (reasoning-carrier.ts). Null when Anthropic answers.
   */
  readonly #foreign: StreamedReasoning | null;
  #usage: Usage = emptyUsage();
  /** The content chunk's JSON around its text, made on the first spliced text delta. */
  #contentAround: [string, string] | null = null;

  constructor(ctx: ClientReplyContext) {
    this.#model = ctx.model;
    this.#created = ctx.created;
    this.#includeUsage = ctx.request.streamUsage === true;
    this.#foreign = ctx.origin === undefined || ctx.origin === 'messages' ? null : new StreamedReasoning(ctx.origin);
  }

  push(ev: HubEvent): string {
    switch (ev.type) {
      case 'text-delta': {
        if (ev.text.length === 0) return '';
        if (ev.json === undefined) return this.#chunk({ content: ev.text });
        const [before, after] = (this.#contentAround ??= this.#around());
        return encodeSse(undefined, before + ev.json + after);
      }
      case 'start':
      case 'text-start':
        return this.#roleChunk();
      case 'reasoning-start':
        if (this.#foreign !== null) this.#foreign.start(ev);
        else if (ev.redacted !== undefined) this.#thinkingBlocks.push({ type: 'redacted_thinking', data: ev.redacted });
        else {
          this.#thinking = { type: 'thinking', thinking: '', signature: '' };
          this.#thinkingBlocks.push(this.#thinking);
        }
        return this.#roleChunk();
      case 'reasoning-delta':
        this.#foreign?.text(ev.text);
        if (this.#thinking !== null) this.#thinking.thinking += ev.text;
        return ev.text.length > 0 ? this.#chunk({ reasoning_content: ev.text }) : '';
      case 'reasoning-signature':
        if (this.#foreign !== null) {
          this.#foreign.signature(ev.signature);
          return '';
        }
        if (this.#thinking !== null) this.#thinking.signature += ev.signature;
        return ev.signature.length > 0 ? this.#chunk({ reasoning_signature: ev.signature }) : '';
      case 'reasoning-end': {
        this.#thinking = null;
        const part = this.#foreign?.end() ?? null;
        const block = part === null ? null : thinkingBlockOf(part);
        if (block?.type !== 'thinking') return '';
        this.#thinkingBlocks.push(block);
        return this.#chunk({ reasoning_signature: block.signature });
      }
      case 'tool-call-start':
        this.#tool = this.#toolCount++;
        this.#toolArgs = false;
        return (
          this.#roleChunk() +
          this.#chunk({
            tool_calls: [
              { index: this.#tool, id: ev.id, type: 'function', function: { name: ev.name, arguments: '' } },
            ],
          })
        );
      case 'tool-call-delta':
        if (this.#tool < 0 || ev.input.length === 0) return '';
        this.#toolArgs = true;
        return this.#chunk({ tool_calls: [{ index: this.#tool, function: { arguments: ev.input } }] });
      case 'tool-call-end': {
        // An argument-less call still owes the client `{}`.
        const out =
          this.#tool >= 0 && !this.#toolArgs
            ? this.#chunk({ tool_calls: [{ index: this.#tool, function: { arguments: '{}' } }] })
            : '';
        this.#tool = -1;
        return out;
      }
      case 'text-end':
        return '';
      case 'usage':
        this.#usage = ev.usage;
        return '';
      case 'finish':
        return this.#roleChunk() + this.#finish(HUB_TO_FINISH_REASON[ev.reason]);
      case 'error': {
        const shaped = shapeChatError({
          from: ev.from ?? 'messages',
          status: ev.status,
          message: ev.message,
          type: ev.errorType,
          code: ev.code,
          param: ev.param,
        });
        const body = { error: { message: shaped.message, type: shaped.type, param: shaped.param, code: shaped.code } };
        return encodeSse(undefined, JSON.stringify(body)) + encodeSse(undefined, '[DONE]');
      }
    }
  }

  #finish(finish: FinishReason): string {
    let out = '';
    if (this.#thinkingBlocks.length > 0) out += this.#chunk({ thinking_blocks: this.#thinkingBlocks });
    out += this.#chunk({}, finish);
    if (this.#includeUsage) {
      const usageChunk = {
        id: this.#id,
        object: 'chat.completion.chunk',
        created: this.#created,
        model: this.#model,
        choices: [],
        usage: usageToOpenAi(this.#usage),
      };
      out += encodeSse(undefined, JSON.stringify(usageChunk));
    }
    return out + encodeSse(undefined, '[DONE]');
  }

  #roleChunk(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#chunk({ role: 'assistant', content: '', refusal: null });
  }

  /** #chunk({ content }) as text on either side of the content's JSON string. */
  #around(): [string, string] {
    const json = JSON.stringify(this.#chunkObject({ content: CONTENT_MARK }, null));
    const at = json.indexOf(CONTENT_MARK_JSON);
    return [json.slice(0, at), json.slice(at + CONTENT_MARK_JSON.length)];
  }

  #chunk(delta: ChatDelta, finish: FinishReason | null = null): string {
    return encodeSse(undefined, JSON.stringify(this.#chunkObject(delta, finish)));
  }

  #chunkObject(delta: ChatDelta, finish: FinishReason | null): JsonObject {
    const chunk: JsonObject = {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (this.#includeUsage) chunk.usage = null;
    return chunk;
  }
}

const CONTENT_MARK = '\u0000modelgate-content\u0000';
const CONTENT_MARK_JSON = JSON.stringify(CONTENT_MARK);
