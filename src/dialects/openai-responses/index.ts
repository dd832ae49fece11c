// The Responses API dialect's two faces to the hub: a /v1/responses caller (client side) and an upstream
// that serves /v1/responses (upstream side, `apis: [responses]`) reached from another dialect.
import type { ClientSide, UpstreamSide } from '../../spec/codec.ts';
import { dropCarriedReasoningItems } from './drop-carried.ts';
import { decodeResponsesRequest } from './decode-request.ts';
import { encodeResponsesReply } from './encode-reply.ts';
import { ResponsesStreamEncoder } from './encode-stream.ts';
import { encodeResponsesRequest } from './encode-request.ts';
import { decodeResponsesReply } from './decode-reply.ts';
import { ResponsesStreamDecoder } from './decode-stream.ts';

export const responsesClient: ClientSide = {
  dialect: 'responses',
  dropCarriedReasoning: dropCarriedReasoningItems,
  decodeRequest: decodeResponsesRequest,
  encodeReply: encodeResponsesReply,
  streamEncoder: (ctx) => new ResponsesStreamEncoder(ctx),
};

export const responsesUpstream: UpstreamSide = {
  dialect: 'responses',
  encodeRequest: encodeResponsesRequest,
  decodeReply: decodeResponsesReply,
  streamDecoder: () => new ResponsesStreamDecoder(),
};
