// The Gemini dialect's two faces to the hub: a caller of Gemini's generateContent (client side) and a
// Gemini upstream (upstream side). Same-dialect traffic passes through instead (passthrough-exchange.ts).
import type { ClientSide, UpstreamSide } from '../../spec/codec.ts';
import { dropCarriedThoughts } from './drop-carried.ts';
import { decodeGeminiReply } from './decode-reply.ts';
import { decodeGeminiRequest } from './decode-request.ts';
import { GeminiStreamDecoder } from './decode-stream.ts';
import { encodeGeminiReply } from './encode-reply.ts';
import { encodeGeminiRequest } from './encode-request.ts';
import { GeminiStreamEncoder } from './encode-stream.ts';

export const geminiClient: ClientSide = {
  dialect: 'gemini',
  dropCarriedReasoning: dropCarriedThoughts,
  carriesCallSignatures: true,
  decodeRequest: decodeGeminiRequest,
  encodeReply: encodeGeminiReply,
  streamEncoder: (ctx) => new GeminiStreamEncoder(ctx),
};

export const geminiUpstream: UpstreamSide = {
  dialect: 'gemini',
  signsCalls: true,
  encodeRequest: encodeGeminiRequest,
  decodeReply: (body) => decodeGeminiReply(body),
  streamDecoder: () => new GeminiStreamDecoder(),
};
