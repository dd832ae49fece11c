// The framing of every Bedrock stream, for ProviderSpec.frames: ConverseStream's events pass as they are
// (their type and JSON), while InvokeModelWithResponseStream's `chunk` events are unwrapped into the
// model's own events (for Claude, Anthropic's SSE events with their `type` as the event name), so the
// Anthropic stream decoder reads them as if they had come over SSE.
import type { Frame, FrameDecoder } from '../../spec/framing.ts';
import { anthropicFrameOfChunk } from './anthropic-body.ts';
import { EventStreamDecoder } from './event-stream.ts';

export class BedrockFrameDecoder implements FrameDecoder {
  readonly #messages = new EventStreamDecoder();

  push(chunk: Uint8Array): Frame[] {
    const frames = this.#messages.push(chunk);
    for (let i = 0; i < frames.length; i++)
      if (frames[i].event === 'chunk') frames[i] = anthropicFrameOfChunk(frames[i].data);
    return frames;
  }

  end(): Frame[] {
    return this.#messages.end();
  }
}
