// Folds a streamed reply back into what the agent keeps: Anthropic content blocks (thinking with its
// signature, text, tool_use with its input parsed from the pieces) or the Responses output items, and the
// usage the provider reported, cache reads included.

type Json = Record<string, unknown>;

export interface ReplyUsage {
  /** Prompt tokens in all (Anthropic: input + cache writes + cache reads). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface FoldedReply {
  output: Json[];
  usage: ReplyUsage | undefined;
}

/** The `data:` payloads of an SSE text, parsed; `[DONE]` and comments skipped. */
export function sseData(text: string): Json[] {
  const out: Json[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    for (const line of event.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data !== '' && data !== '[DONE]') out.push(JSON.parse(data) as Json);
    }
  }
  return out;
}

function anthropicUsage(u: Json | undefined, into: ReplyUsage | undefined): ReplyUsage | undefined {
  if (u === undefined || typeof u.input_tokens !== 'number') return into;
  const read = Number(u.cache_read_input_tokens ?? 0);
  const write = Number(u.cache_creation_input_tokens ?? 0);
  return { input: u.input_tokens + read + write, cacheRead: read, cacheWrite: write };
}

export function foldAnthropic(text: string): FoldedReply {
  const blocks: Json[] = [];
  const partial = new Map<number, string>();
  let usage: ReplyUsage | undefined;
  for (const event of sseData(text)) {
    switch (event.type) {
      case 'message_start':
        usage = anthropicUsage((event.message as Json).usage as Json, usage);
        break;
      case 'content_block_start':
        blocks[event.index as number] = { ...(event.content_block as Json) };
        break;
      case 'content_block_delta': {
        const block = blocks[event.index as number];
        const delta = event.delta as Json;
        if (delta.type === 'thinking_delta') block.thinking = `${block.thinking}${delta.thinking}`;
        else if (delta.type === 'signature_delta') block.signature = delta.signature;
        else if (delta.type === 'text_delta') block.text = `${block.text}${delta.text}`;
        else if (delta.type === 'input_json_delta')
          partial.set(event.index as number, (partial.get(event.index as number) ?? '') + String(delta.partial_json));
        break;
      }
      case 'content_block_stop': {
        const json = partial.get(event.index as number);
        if (json !== undefined) blocks[event.index as number].input = JSON.parse(json);
        break;
      }
      case 'message_delta':
        usage = anthropicUsage(event.usage as Json, usage);
        break;
      case 'error':
        throw new Error(`error event: ${JSON.stringify(event.error)}`);
    }
  }
  return { output: blocks.filter((b) => b !== undefined), usage };
}

export function foldResponses(text: string): FoldedReply {
  const output: Json[] = [];
  let usage: ReplyUsage | undefined;
  for (const event of sseData(text)) {
    if (event.type === 'response.output_item.done') output[event.output_index as number] = event.item as Json;
    else if (event.type === 'response.completed') {
      const u = (event.response as Json).usage as Json | null;
      if (u !== null && u !== undefined) {
        const details = (u.input_tokens_details ?? {}) as Json;
        usage = { input: Number(u.input_tokens), cacheRead: Number(details.cached_tokens ?? 0), cacheWrite: 0 };
      }
    } else if (event.type === 'response.failed' || event.type === 'error')
      throw new Error(`${String(event.type)}: ${JSON.stringify(event)}`);
  }
  return { output: output.filter((i) => i !== undefined), usage };
}
