// Direction 1, stream: Anthropic message stream events from the upstream → OpenAI chat.completion.chunk SSE.
// Tool calls are numbered by their own counter (0,1,2… in order of appearance), never by the Anthropic block
// index, so text before tools does not offset them. In JSON mode the reply is the forced tool's input, as in
// the whole reply (messages-response-to-chat.ts): text is held until the stream shows whether that tool is
// called, and a wrapped non-object value is unwrapped as it streams. One instance per request.
import type { SseEvent } from '../core/sse.ts';
import { encodeSse } from '../core/sse.ts';
import type { Usage } from '../core/usage.ts';
import { emptyUsage, outputTokensForChars } from '../core/usage.ts';
import type { ChatDelta, ChatThinkingBlock, FinishReason } from './wire-openai.ts';
import { newChatCompletionId } from './ids.ts';
import { isObject, isVerbatimJsonText, str, tryParseJson, type JsonObject } from './narrow.ts';
import { finishReasonFor } from './stop-reasons.ts';
import { jsonTextOfToolInput, StreamedJsonUnwrap, type JsonMode } from './structured-output.ts';
import { ANTHROPIC_ERROR_STATUS, upstreamErrorToDialect } from './upstream-error.ts';
import { usageFromAnthropic, usageToOpenAi } from './usage-map.ts';

export interface MessagesStreamToChatOptions {
  /** The model name the client asked for. */
  model: string;
  /** Unix seconds, the same in every chunk. */
  created: number;
  /** The client's stream_options.include_usage: end with a usage chunk before [DONE]. */
  includeUsage: boolean;
  /** From chatRequestToMessages: this tool's input_json_delta fragments are the JSON reply text. */
  jsonMode?: JsonMode | null;
}

type BlockKind = 'text' | 'thinking' | 'tool' | 'json' | 'other';

interface OpenBlock {
  kind: BlockKind;
  /** Position in the chat tool_calls array, for kind `tool`. */
  toolIndex: number;
  /** Kind `tool`: some arguments were sent (an empty input still owes the client `{}`). */
  args: boolean;
  /** Kind `json` with a wrapped value. */
  unwrap: StreamedJsonUnwrap | null;
  /** Kind `thinking`: the block as it accumulates, listed in `thinking_blocks`. */
  thinking: ThinkingRecord | null;
  stopped: boolean;
}

type ThinkingRecord = Extract<ChatThinkingBlock, { type: 'thinking' }>;

const blockOf = (kind: BlockKind, toolIndex = -1): OpenBlock => ({ kind, toolIndex, args: false, unwrap: null, thinking: null, stopped: false });

export class MessagesStreamToChatStream {
  readonly #id = newChatCompletionId();
  readonly #model: string;
  readonly #created: number;
  readonly #includeUsage: boolean;
  readonly #jsonMode: JsonMode | null;
  readonly #blocks = new Map<number, OpenBlock>();
  #nextToolIndex = 0;
  #started = false;
  #stopReason: string | null = null;
  #usage: Usage = emptyUsage();
  /** message_delta reported the output count: no estimate is needed. */
  #outputReported = false;
  /** Characters of output delivered (text, reasoning, tool input): the estimate for a stream cut before its count. */
  #outputChars = 0;
  #finished = false;
  #failed = false;
  /** The content chunk's JSON around its text, made on the first plain text delta. */
  #contentAround: [string, string] | null = null;
  /** JSON mode: text seen before the forced tool, sent at the end only if the tool never came. */
  #heldText = '';
  #jsonSeen = false;
  /** Every thinking and redacted_thinking block whole, for one `thinking_blocks` delta before the finish. */
  readonly #thinkingBlocks: ChatThinkingBlock[] = [];

  constructor(opts: MessagesStreamToChatOptions) {
    this.#model = opts.model;
    this.#created = opts.created;
    this.#includeUsage = opts.includeUsage;
    this.#jsonMode = opts.jsonMode ?? null;
  }

  /**
   * Usage so far (cumulative; final once `finished`). Until message_delta reports the output, what was
   * delivered counts at about four characters a token (message_start says only 1), as the other
   * direction estimates a stream without usage.
   */
  get usage(): Usage {
    const u = { ...this.#usage };
    if (!this.#outputReported) u.outputTokens = Math.max(u.outputTokens, outputTokensForChars(this.#outputChars));
    return u;
  }

  /** True once the terminal output ([DONE]) has been produced, normally or after an error. */
  get finished(): boolean {
    return this.#finished;
  }

  /** True when the stream ended with an error chunk instead of a finish_reason. */
  get failed(): boolean {
    return this.#failed;
  }

  push(ev: SseEvent): string {
    if (this.#finished || ev.data.length === 0) return '';
    const plain = this.#jsonMode === null ? plainTextDelta(ev.data) : null;
    if (plain !== null) {
      // The common token event, read without parsing it; the chunk is what #chunk({ content }) writes.
      if (!this.#blocks.has(plain.index) || plain.quoted.length === 2) return '';
      this.#outputChars += plain.quoted.length - 2;
      const [before, after] = (this.#contentAround ??= this.#around());
      return encodeSse(undefined, before + plain.quoted + after);
    }
    const data = tryParseJson(ev.data);
    if (!isObject(data)) return this.#fail({ type: 'api_error', message: 'upstream sent a malformed stream event' });
    switch (str(data.type) ?? ev.event) {
      case 'message_start':
        this.#usage = usageFromAnthropic(isObject(data.message) ? data.message.usage : undefined, this.#usage);
        return this.#roleChunk();
      case 'content_block_start':
        return this.#blockStart(data);
      case 'content_block_delta':
        return this.#blockDelta(data);
      case 'message_delta':
        if (isObject(data.delta) && str(data.delta.stop_reason) !== undefined) this.#stopReason = str(data.delta.stop_reason) ?? null;
        if (isObject(data.usage) && typeof data.usage.output_tokens === 'number') this.#outputReported = true;
        this.#usage = usageFromAnthropic(data.usage, this.#usage);
        return '';
      case 'content_block_stop': {
        const stopped = typeof data.index === 'number' ? this.#blocks.get(data.index) : undefined;
        return stopped === undefined ? '' : this.#stopBlock(stopped);
      }
      case 'message_stop':
        return this.#roleChunk() + this.#finish();
      case 'error':
        return this.#fail(isObject(data.error) ? data.error : {});
      default:
        // ping and event types newer than this code carry nothing for the client.
        return '';
    }
  }

  /** The upstream ended. Without message_stop the client gets an error chunk, then [DONE]. */
  end(): string {
    if (this.#finished) return '';
    return this.#fail({ type: 'api_error', message: 'upstream stream ended before message_stop' });
  }

  #blockStart(data: JsonObject): string {
    const index = typeof data.index === 'number' ? data.index : this.#blocks.size;
    const block = isObject(data.content_block) ? data.content_block : {};
    let out = this.#roleChunk();
    if (block.type === 'text') {
      this.#blocks.set(index, blockOf('text'));
      out += this.#text(str(block.text) ?? '');
    } else if (block.type === 'thinking') {
      const thinking = blockOf('thinking');
      thinking.thinking = { type: 'thinking', thinking: str(block.thinking) ?? '', signature: str(block.signature) ?? '' };
      this.#thinkingBlocks.push(thinking.thinking);
      this.#blocks.set(index, thinking);
    } else if (block.type === 'redacted_thinking') {
      this.#blocks.set(index, blockOf('other'));
      this.#thinkingBlocks.push({ type: 'redacted_thinking', data: str(block.data) ?? '' });
    } else if (block.type === 'tool_use') {
      const name = str(block.name) ?? '';
      const input = isObject(block.input) ? block.input : {};
      const whole = Object.keys(input).length > 0;
      const mode = this.#jsonMode;
      if (mode !== null && name === mode.toolName) {
        // The JSON reply replaces any text around it, as in the whole reply.
        this.#jsonSeen = true;
        this.#heldText = '';
        const json = blockOf('json');
        if (mode.wrapKey !== null && !whole) json.unwrap = new StreamedJsonUnwrap(mode.wrapKey);
        this.#blocks.set(index, json);
        return whole ? out + this.#chunk({ content: jsonTextOfToolInput(input, mode) }) : out;
      }
      const tool = blockOf('tool', this.#nextToolIndex++);
      this.#blocks.set(index, tool);
      // Real upstreams start with `{}` and stream the input; a proxy that sends it whole here is honoured.
      tool.args = whole;
      out += this.#chunk({
        tool_calls: [{ index: tool.toolIndex, id: str(block.id) ?? '', type: 'function', function: { name, arguments: whole ? JSON.stringify(input) : '' } }],
      });
    } else {
      this.#blocks.set(index, blockOf('other'));
    }
    return out;
  }

  #blockDelta(data: JsonObject): string {
    const block = typeof data.index === 'number' ? this.#blocks.get(data.index) : undefined;
    const delta = isObject(data.delta) ? data.delta : {};
    if (block === undefined) return '';
    const produced = str(delta.text) ?? str(delta.partial_json) ?? str(delta.thinking);
    if (produced !== undefined) this.#outputChars += produced.length;
    switch (delta.type) {
      case 'text_delta':
        return this.#text(str(delta.text) ?? '');
      case 'input_json_delta': {
        const part = str(delta.partial_json) ?? '';
        if (part.length === 0 || block.stopped) return '';
        if (block.kind === 'json') return this.#content(block.unwrap === null ? part : block.unwrap.push(part));
        if (block.kind !== 'tool') return '';
        block.args = true;
        return this.#chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: part } }] });
      }
      case 'thinking_delta': {
        const text = str(delta.thinking) ?? '';
        if (block.thinking !== null) block.thinking.thinking += text;
        return text.length > 0 ? this.#chunk({ reasoning_content: text }) : '';
      }
      case 'signature_delta': {
        const sig = str(delta.signature) ?? '';
        if (block.thinking !== null) block.thinking.signature += sig;
        return sig.length > 0 ? this.#chunk({ reasoning_signature: sig }) : '';
      }
      default:
        return '';
    }
  }

  #text(text: string): string {
    if (text.length === 0) return '';
    if (this.#jsonMode === null) return this.#chunk({ content: text });
    if (!this.#jsonSeen) this.#heldText += text;
    return '';
  }

  #content(text: string): string {
    return text.length === 0 ? '' : this.#chunk({ content: text });
  }

  /** A block's end: an argument-less call gets its `{}`, an unwrapped JSON value its last part. */
  #stopBlock(block: OpenBlock): string {
    if (block.stopped) return '';
    block.stopped = true;
    if (block.kind === 'tool' && !block.args) return this.#chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: '{}' } }] });
    if (block.kind === 'json' && block.unwrap !== null) return this.#content(block.unwrap.end());
    return '';
  }

  #roleChunk(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#chunk({ role: 'assistant', content: '', refusal: null });
  }

  #finish(): string {
    let out = '';
    for (const block of this.#blocks.values()) out += this.#stopBlock(block);
    if (!this.#jsonSeen) out += this.#content(this.#heldText);
    this.#heldText = '';
    // Whole blocks once, so a client that merges deltas by assignment (the OpenAI SDK) and one that
    // appends both end with the same list.
    if (this.#thinkingBlocks.length > 0) out += this.#chunk({ thinking_blocks: this.#thinkingBlocks });
    let finish: FinishReason = finishReasonFor(this.#stopReason);
    // The forced JSON tool is not a tool call to the client: its input was the content.
    if (finish === 'tool_calls' && this.#nextToolIndex === 0) finish = 'stop';
    out += this.#chunk({}, finish);
    if (this.#includeUsage) {
      const usageChunk = { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [], usage: usageToOpenAi(this.#usage) };
      out += encodeSse(undefined, JSON.stringify(usageChunk));
    }
    this.#finished = true;
    return out + encodeSse(undefined, '[DONE]');
  }

  #fail(error: JsonObject): string {
    const anthropicType = str(error.type) ?? 'api_error';
    const shaped = upstreamErrorToDialect({
      upstreamKind: 'anthropic',
      clientDialect: 'openai',
      status: ANTHROPIC_ERROR_STATUS[anthropicType] ?? 500,
      bodyText: JSON.stringify({ type: 'error', error }),
    });
    this.#finished = true;
    this.#failed = true;
    const body = { error: { message: shaped.message, type: shaped.type, param: shaped.param, code: shaped.code } };
    return encodeSse(undefined, JSON.stringify(body)) + encodeSse(undefined, '[DONE]');
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
const TEXT_DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA_MID = ',"delta":{"type":"text_delta","text":"';

/**
 * An Anthropic text_delta event exactly as the API writes it — `{"type":"content_block_delta","index":N,
 * "delta":{"type":"text_delta","text":"…"}}` with no escapes in the text — as its block index and the
 * text's JSON string (quotes included); null for anything else, which then takes the general path.
 */
export function plainTextDelta(data: string): { index: number; quoted: string } | null {
  if (!data.startsWith(TEXT_DELTA_HEAD)) return null;
  let i = TEXT_DELTA_HEAD.length;
  let index = 0;
  const first = i;
  for (let c = data.charCodeAt(i); c >= 48 && c <= 57 && i - first < 9; c = data.charCodeAt(++i)) index = index * 10 + (c - 48);
  if (i === first || !data.startsWith(TEXT_DELTA_MID, i)) return null;
  const open = i + TEXT_DELTA_MID.length - 1;
  // The text runs to the closing '"}}' at the very end, without escapes or raw control characters.
  const close = data.length - 3;
  if (close <= open || data.charCodeAt(close) !== 34 || data.charCodeAt(close + 1) !== 125 || data.charCodeAt(close + 2) !== 125) return null;
  if (!isVerbatimJsonText(data, open + 1, close)) return null;
  return { index, quoted: data.slice(open, close + 1) };
}
