// The output text a pass-through stream carried (content, reasoning, tool arguments), read from the SSE
// blocks the tap forwarded: what a stream left without its usage event is billed for. Runs only then,
// once a stream, so it parses every data line instead of searching bytes as the tap does.
import type { Dialect } from '../core/dialect.ts';
import { isObject } from '../core/json.ts';

/** The text pieces of the output events in `blocks` (the stream's bytes, in order). */
export function deliveredText(blocks: readonly Uint8Array[], dialect: Dialect): string[] {
  const pieces: string[] = [];
  const text = Buffer.concat(blocks).toString('utf8');
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (!line.startsWith('data:')) continue;
    let event: unknown;
    try {
      event = JSON.parse(line.slice(5));
    } catch {
      continue;
    }
    if (isObject(event)) (dialect === 'openai' ? openaiPieces : anthropicPieces)(event, pieces);
  }
  return pieces;
}

function openaiPieces(chunk: Record<string, unknown>, pieces: string[]): void {
  if (!Array.isArray(chunk.choices)) return;
  for (const choice of chunk.choices) {
    const delta: unknown = isObject(choice) ? choice.delta : undefined;
    if (!isObject(delta)) continue;
    for (const field of ['content', 'reasoning_content', 'reasoning', 'refusal'] as const) add(delta[field], pieces);
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const call of delta.tool_calls) {
      const fn: unknown = isObject(call) ? call.function : undefined;
      if (isObject(fn)) {
        add(fn.name, pieces);
        add(fn.arguments, pieces);
      }
    }
  }
}

function anthropicPieces(event: Record<string, unknown>, pieces: string[]): void {
  const part: unknown =
    event.type === 'content_block_delta'
      ? event.delta
      : event.type === 'content_block_start'
        ? event.content_block
        : undefined;
  if (!isObject(part)) return;
  for (const field of ['text', 'thinking', 'partial_json', 'name'] as const) add(part[field], pieces);
}

function add(value: unknown, pieces: string[]): void {
  if (typeof value === 'string' && value !== '') pieces.push(value);
}
