// Bedrock's Converse wire as an upstream side of the hub: what kind bedrock sends its models that are not
// Claude (ProviderSpec.upstreamSide). No caller speaks Converse to the gateway's generation endpoints, so
// every request to it is translated: the hub's request encoded as a Converse body, the whole reply or the
// ConverseStream events (already cut from AWS's event-stream framing by the provider's frames) read back.
import type { UpstreamSide } from '../../spec/codec.ts';
import { decodeConverseReply } from './converse-reply.ts';
import { encodeConverseRequest } from './converse-request.ts';
import { ConverseStreamDecoder } from './converse-stream.ts';

export const converseUpstream: UpstreamSide = {
  // Converse is shaped after Anthropic's Messages (turns of content blocks, tool use and results as blocks).
  dialect: 'messages',
  encodeRequest: encodeConverseRequest,
  decodeReply: (body) => decodeConverseReply(body),
  streamDecoder: () => new ConverseStreamDecoder(),
};
