// A Gemini upstream's whole generateContent reply → the hub's reply: the fold of the one chunk it is,
// read by the stream decoder, so parts are read in one place.
import type { AssistantPart, HubReply } from '../../translate/hub/form.ts';
import { emptyUsage } from '../../core/usage.ts';
import { GatewayError } from '../../core/errors.ts';
import { GeminiStreamDecoder } from './decode-stream.ts';

export function decodeGeminiReply(body: Record<string, unknown>): HubReply {
  const events = new GeminiStreamDecoder().chunk(body);
  const reply: HubReply = { content: [], finish: 'other', usage: emptyUsage(), usageMissing: true };
  let open: AssistantPart | null = null;
  for (const ev of events) {
    switch (ev.type) {
      case 'text-start':
        reply.content.push((open = { type: 'text', text: '' }));
        break;
      case 'reasoning-start':
        reply.content.push((open = { type: 'reasoning', text: '', origin: 'gemini' }));
        break;
      case 'text-delta':
      case 'reasoning-delta':
        if (open !== null && (open.type === 'text' || open.type === 'reasoning')) open.text += ev.text;
        break;
      case 'reasoning-signature':
        if (open?.type === 'reasoning') open.signature = ev.signature;
        break;
      case 'tool-call-start': {
        open = { type: 'tool-call', id: ev.id, name: ev.name, input: '' };
        if (ev.signature !== undefined) open.signature = ev.signature;
        reply.content.push(open);
        break;
      }
      case 'tool-call-delta':
        if (open?.type === 'tool-call') open.input += ev.input;
        break;
      case 'usage':
        reply.usage = ev.usage;
        delete reply.usageMissing;
        break;
      case 'finish':
        reply.finish = ev.reason;
        break;
      case 'error':
        throw new GatewayError('upstream_error', { message: ev.message });
      default:
        break;
    }
  }
  return reply;
}
