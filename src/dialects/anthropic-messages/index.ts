// The messages dialect's two faces to the hub: a /v1/messages caller (client side) and an
// Anthropic-style upstream (upstream side).
import type { ClientSide, UpstreamSide } from '../../spec/codec.ts';
import { dropCarriedThinking } from './drop-carried.ts';
import { decodeMessagesReply } from './decode-reply.ts';
import { decodeMessagesRequest } from './decode-request.ts';
import { MessagesStreamDecoder } from './decode-stream.ts';
import { encodeMessagesReply } from './encode-reply.ts';
import { encodeMessagesRequest } from './encode-request.ts';
import { MessagesStreamEncoder } from './encode-stream.ts';

export const messagesClient: ClientSide = {
  dialect: 'messages',
  dropCarriedReasoning: dropCarriedThinking,
  decodeRequest: decodeMessagesRequest,
  encodeReply: encodeMessagesReply,
  streamEncoder: (ctx) => new MessagesStreamEncoder(ctx),
};

export const messagesUpstream: UpstreamSide = {
  dialect: 'messages',
  encodeRequest: encodeMessagesRequest,
  decodeReply: decodeMessagesReply,
  streamDecoder: (state) => new MessagesStreamDecoder(state),
};
