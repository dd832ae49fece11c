// Bedrock's Converse API as a client face of the hub: what applications written against the AWS SDK
// (ConverseCommand, ConverseStreamCommand) send to /model/{m}/converse and /converse-stream. The upstream
// face of the same wire is kind bedrock's (src/providers/bedrock/converse-side.ts); the AWS event-stream
// framing of the streamed reply is the route's (src/pipeline/reply-framing.ts). Its stream text is one SSE
// event per ConverseStream event (`event:` the type), which that framing writes as event-stream messages.
import type { ClientSide } from '../../spec/codec.ts';
import { decodeConverseRequest } from './decode-request.ts';
import { encodeConverseReply } from './encode-reply.ts';
import { ConverseStreamEncoder } from './encode-stream.ts';

export const converseClient: ClientSide = {
  dialect: 'messages',
  decodeRequest: decodeConverseRequest,
  encodeReply: encodeConverseReply,
  streamEncoder: (ctx) => new ConverseStreamEncoder(ctx),
};
