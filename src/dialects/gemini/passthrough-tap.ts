// The same-dialect Gemini stream path: forwards the upstream's SSE bytes as they are (the model is in
// the URL, so nothing is renamed), reading usage from the `usageMetadata` each chunk may carry (the
// last one counts) and noting the end from a `finishReason`: Gemini's streams have no terminator event.
import { emptyUsage, type Usage } from '../../core/usage.ts';
import { isObject } from '../../core/json.ts';
import { GatewayError } from '../../core/errors.ts';
import { usageFromGemini } from './usage.ts';

/** A line this long without its end is a broken upstream (as the pass-through tap's cap). */
const MAX_LINE = 64 * 1048576;

export class GeminiStreamTap {
  usage: Usage = emptyUsage();
  sawUsage = false;
  /** A chunk named a finishReason: the answer is whole when the body ends. */
  finished = false;
  /** `data:` events forwarded: the fallback count of output tokens for a stream cut before its usage. */
  deltaEvents = 0;
  /** The last event was an error object (the upstream's own in-stream error). */
  #endedWithError = false;
  #carry = '';

  /** What to forward for a chunk, as latin1 (one character a byte); only whole lines go out. */
  push(chunk: Uint8Array): string {
    const read = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    const text = this.#carry === '' ? read : this.#carry + read;
    const lastNl = text.lastIndexOf('\n');
    if (lastNl === -1) {
      if (text.length > MAX_LINE) throw new GatewayError('upstream_error', { message: `The upstream stream sent more than ${MAX_LINE / 1048576} MB without a line end.` });
      this.#carry = text;
      return '';
    }
    this.#carry = text.slice(lastNl + 1);
    const block = text.slice(0, lastNl + 1);
    this.#scan(block);
    return block;
  }

  /** The upstream's own error event ended what was read: the stream already ends well-formed. */
  endsWithError(): boolean {
    return this.#endedWithError;
  }

  end(): string {
    const rest = this.#carry;
    this.#carry = '';
    if (rest !== '') this.#scan(rest);
    return rest;
  }

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
