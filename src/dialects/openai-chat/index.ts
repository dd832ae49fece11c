// The chat-completions dialect's two faces to the hub: a /v1/chat/completions caller (client side) and
// an OpenAI-compatible upstream (upstream side).
import type { ClientSide, UpstreamSide } from '../../spec/codec.ts';
import { dropCarriedThinkingBlocks } from './drop-carried.ts';
import { decodeChatReply } from './decode-reply.ts';
import { decodeChatRequest } from './decode-request.ts';
import { ChatStreamDecoder } from './decode-stream.ts';
import { encodeChatReply } from './encode-reply.ts';
import { encodeChatRequest } from './encode-request.ts';
import { ChatStreamEncoder } from './encode-stream.ts';

export const chatClient: ClientSide = {
  dialect: 'chat',
  dropCarriedReasoning: dropCarriedThinkingBlocks,
  decodeRequest: decodeChatRequest,
  encodeReply: encodeChatReply,
  streamEncoder: (ctx) => new ChatStreamEncoder(ctx),
};

export const chatUpstream: UpstreamSide = {
  dialect: 'chat',
  encodeRequest: encodeChatRequest,
  decodeReply: decodeChatReply,
  streamDecoder: (state) => new ChatStreamDecoder(state),
};
