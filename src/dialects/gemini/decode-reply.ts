// A Gemini upstream's whole generateContent reply → the hub's reply: the fold of the one chunk it is,
// read by the stream decoder, so parts are read in one place.
import type { HubReply } from '../../spec/form.ts';
import { GatewayError } from '../../core/errors.ts';
import { foldEvents } from '../../spec/fold.ts';
import { GeminiStreamDecoder } from './decode-stream.ts';

export function decodeGeminiReply(body: Record<string, unknown>): HubReply {
  const events = new GeminiStreamDecoder().chunk(body);
  const failed = events.find((e) => e.type === 'error');
  if (failed !== undefined) throw new GatewayError('upstream_error', { message: failed.message });
  // Thoughts and their signatures are Gemini's to read back.
  return foldEvents(events, 'gemini');
}
