// The framing of every Bedrock stream, for ProviderSpec.frames: ConverseStream's events pass as they are
// (their type and JSON), while InvokeModelWithResponseStream's `chunk` events are unwrapped into the
// model's own events (for Claude, Anthropic's SSE events with their `type` as the event name), so the
// Anthropic stream decoder reads them as if they had come over SSE. An exception message in a Claude
// stream (`throttlingException` after some chunks) becomes Anthropic's `error` event with the type the
// Bedrock exception stands for, so the stream ends as an upstream error the gateway classifies like any
// other; in a Converse stream the Converse decoder reads the exception itself.
import type { Frame, FrameDecoder } from '../../spec/framing.ts';
import { anthropicFrameOfChunk } from './anthropic-body.ts';
import { bedrockErrorStatus } from './converse-errors.ts';
import { EventStreamDecoder } from '../aws/event-stream.ts';

/** Anthropic's error type for the HTTP status a Bedrock exception stands for. */
function anthropicErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  return 'api_error';
}

/** Anthropic's `error` event for a Bedrock exception message (its type and `{"message": …}` payload). */
export function anthropicFrameOfException(type: string, data: string): Frame {
  let message = `Bedrock raised ${type} mid-stream.`;
  try {
    const parsed = JSON.parse(data) as { message?: unknown; Message?: unknown };
    const text = parsed.message ?? parsed.Message;
    if (typeof text === 'string' && text !== '') message = `${type}: ${text}`;
  } catch {
    // A payload that is not JSON: the type alone names the failure.
  }
  return {
    event: 'error',
    data: JSON.stringify({ type: 'error', error: { type: anthropicErrorType(bedrockErrorStatus(type)), message } }),
  };
}

export class BedrockFrameDecoder implements FrameDecoder {
  readonly #messages = new EventStreamDecoder();
  readonly #claude: boolean;

  /** `claude`: an InvokeModelWithResponseStream of Anthropic's events; else ConverseStream. */
  constructor(claude: boolean) {
    this.#claude = claude;
  }

  push(chunk: Uint8Array): Frame[] {
    const messages = this.#messages.pushMessages(chunk);
    const frames: Frame[] = new Array(messages.length);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (this.#claude && m.type === 'chunk') frames[i] = anthropicFrameOfChunk(m.data);
      else if (this.#claude && m.messageType !== 'event') frames[i] = anthropicFrameOfException(m.type, m.data);
      else frames[i] = { event: m.type, data: m.data };
    }
    return frames;
  }

  end(): Frame[] {
    return this.#messages.end();
  }
}
