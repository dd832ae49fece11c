// The same-dialect Gemini stream path: forwards the upstream's SSE bytes as they are (the model is in
// the URL, so nothing is renamed), reading usage from the `usageMetadata` each chunk may carry (the
// last one counts) and noting the end from a `finishReason`: Gemini's streams have no terminator event.
import { emptyUsage, type Usage } from '../../core/usage.ts';
import { isObject } from '../../core/json.ts';
import { usageFromGemini } from './usage.ts';
import { SseLineBlocks } from '../sse-line-blocks.ts';

export class GeminiStreamTap {
  usage: Usage = emptyUsage();
  sawUsage = false;
  /** A chunk named a finishReason: the answer is whole when the body ends. */
  finished = false;
  /** `data:` events forwarded: the fallback count of output tokens for a stream cut before its usage. */
  deltaEvents = 0;
  /** The last event was an error object (the upstream's own in-stream error). */
  #endedWithError = false;
  readonly #lines = new SseLineBlocks();

  /** What to forward for a chunk (empty when nothing is to be sent yet): whole lines, as they came. */
  push(chunk: Uint8Array): Buffer {
    const block = this.#lines.push(chunk);
    if (block.length > 0) this.#scan(block.toString('latin1'));
    return block;
  }

  /** The upstream's own error event ended what was read: the stream already ends well-formed. */
  endsWithError(): boolean {
    return this.#endedWithError;
  }

  end(): Buffer {
    const rest = this.#lines.end();
    if (rest.length > 0) this.#scan(rest.toString('latin1'));
    return rest;
  }

  /** Reads the block's latin1 text (one character a byte: the searches need no decoding). */
  #scan(block: string): void {
    // Only at a line's start: a model's text may itself hold `data:`.
    for (let at = block.startsWith('data:') ? 0 : lineStart(block, 0); at !== -1; at = lineStart(block, at + 5)) {
      this.deltaEvents++;
      const end = block.indexOf('\n', at);
      const line = block.slice(at + 5, end === -1 ? block.length : end);
      this.#endedWithError = line.trimStart().startsWith('{"error"');
      if (!this.finished && line.includes('"finishReason"')) this.finished = true;
      if (line.includes('"usageMetadata"')) this.#readUsage(line);
    }
  }

  #readUsage(line: string): void {
    try {
      const v: unknown = JSON.parse(Buffer.from(line, 'latin1').toString('utf8'));
      const usage = isObject(v) ? usageFromGemini(v.usageMetadata) : undefined;
      if (usage === undefined) return;
      this.usage = usage;
      this.sawUsage = true;
    } catch {
      // Not JSON: the line is forwarded as it came; usage falls back to the count of events.
    }
  }
}

/** Index of the next `data:` that opens a line at or after `from`, or -1. */
function lineStart(block: string, from: number): number {
  const at = block.indexOf('\ndata:', from - 1);
  return at === -1 ? -1 : at + 1;
}
