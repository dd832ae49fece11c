// Pre-serialised response bodies of the benchmark's mock upstream (OpenAI and Anthropic, JSON and SSE).
// Built once at start so the mock spends its share of the two shared cores on writing, not on JSON.stringify.

export interface BodyOptions {
  /** Content events in a streamed reply (and pieces of the JSON reply's text). */
  chunks: number;
  /** Characters of reply text per content event. */
  chunkSize: number;
}

export interface StreamBodies {
  /** Events sent before the first content event (OpenAI: role chunk; Anthropic: message_start, block start, ping). */
  head: Buffer;
  /** One content event, written `chunks` times. */
  content: Buffer;
  /** Events after the last content event, without and with the usage chunk. */
  tail: Buffer;
  tailWithUsage: Buffer;
}

export interface MockBodies {
  openaiJson: Buffer;
  openaiStream: StreamBodies;
  anthropicJson: Buffer;
  anthropicStream: StreamBodies;
  /** SSE events a client sees in one OpenAI-style streamed reply without usage, counting `[DONE]`. */
  openaiEventsPerStream: number;
}

const CREATED = 1_700_000_000;
const PROMPT_TOKENS = 12;

function pieceOf(size: number): string {
  // Printable ASCII only, so byte and character counts agree and nothing needs escaping.
  return 'abcdefghijklmnopqrstuvwxyz '.repeat(Math.ceil(size / 27)).slice(0, size);
}

function sse(data: unknown, event?: string): string {
  const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  return event === undefined ? line : `event: ${event}\n${line}`;
}

function openaiChunk(delta: object, finishReason: string | null): string {
  return sse({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

function openaiUsage(completionTokens: number): object {
  return {
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: completionTokens,
    total_tokens: PROMPT_TOKENS + completionTokens,
  };
}

function buildOpenai(options: BodyOptions, piece: string): { json: Buffer; stream: StreamBodies } {
  const json = {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: piece.repeat(options.chunks), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: openaiUsage(options.chunks),
  };
  const usageChunk = sse({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'm',
    choices: [],
    usage: openaiUsage(options.chunks),
  });
  const finish = openaiChunk({}, 'stop');
  const done = sse('[DONE]');
  return {
    json: Buffer.from(JSON.stringify(json)),
    stream: {
      head: Buffer.from(openaiChunk({ role: 'assistant', content: '' }, null)),
      content: Buffer.from(openaiChunk({ content: piece }, null)),
      tail: Buffer.from(finish + done),
      tailWithUsage: Buffer.from(finish + usageChunk + done),
    },
  };
}

function buildAnthropic(options: BodyOptions, piece: string): { json: Buffer; stream: StreamBodies } {
  const json = {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: piece.repeat(options.chunks) }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: PROMPT_TOKENS, output_tokens: options.chunks },
  };
  const start = {
    type: 'message_start',
    message: { ...json, content: [], stop_reason: null, usage: { input_tokens: PROMPT_TOKENS, output_tokens: 1 } },
  };
  const tail =
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: options.chunks },
      },
      'message_delta',
    ) +
    sse({ type: 'message_stop' }, 'message_stop');
  return {
    json: Buffer.from(JSON.stringify(json)),
    stream: {
      head: Buffer.from(
        sse(start, 'message_start') +
          sse(
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            'content_block_start',
          ) +
          sse({ type: 'ping' }, 'ping'),
      ),
      content: Buffer.from(
        sse(
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
          'content_block_delta',
        ),
      ),
      // Anthropic always reports usage in the stream, so both tails are the same.
      tail: Buffer.from(tail),
      tailWithUsage: Buffer.from(tail),
    },
  };
}

export function buildMockBodies(options: BodyOptions): MockBodies {
  const piece = pieceOf(options.chunkSize);
  const openai = buildOpenai(options, piece);
  const anthropic = buildAnthropic(options, piece);
  return {
    openaiJson: openai.json,
    openaiStream: openai.stream,
    anthropicJson: anthropic.json,
    anthropicStream: anthropic.stream,
    // role chunk + content chunks + finish chunk + [DONE]
    openaiEventsPerStream: options.chunks + 3,
  };
}
