// Incremental Server-Sent Events decoder and encoder, shared by the usage tap, the translators and the tests.
// Framing follows what both official SDKs accept (shared/specs/STREAMING.md §0): events end at a blank
// line; LF, CR and CRLF all end a line; `:` lines are comments; only `event:` and `data:` matter.
// Bytes are decoded by Utf8Chunks, so a multi-byte character split across two TCP chunks
// is never mangled.

import { Utf8Chunks } from './utf8-chunks.ts';

export interface SseEvent {
  /** The `event:` field, or undefined when the event had none (OpenAI chat chunks never have one). */
  event: string | undefined;
  /** The `data:` lines joined with "\n". */
  data: string;
}

export class SseDecoder {
  #utf8 = new Utf8Chunks();
  #pending = '';
  #event: string | undefined = undefined;
  #data: string[] = [];
  #lastWasCR = false;

  /** Feeds bytes or text; returns every event completed by this chunk, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    return this.#consume(typeof chunk === 'string' ? chunk : this.#utf8.decode(chunk));
  }

  /** Flushes the decoder at end of input. An event not ended by a blank line is dropped, as the SDKs do. */
  end(): SseEvent[] {
    const out = this.#consume(this.#utf8.end());
    this.#pending = '';
    this.#event = undefined;
    this.#data = [];
    return out;
  }

  #consume(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let buf = this.#pending + text;
    let start = 0;
    // A CRLF split across two chunks: the LF that opens this chunk belongs to the CR that ended the last.
    if (this.#lastWasCR && buf.charCodeAt(0) === 10) start = 1;
    this.#lastWasCR = false;
    if (buf.indexOf('\r', start) === -1) {
      // LF only (nearly every server): jump from line end to line end natively.
      for (let nl = buf.indexOf('\n', start); nl !== -1; nl = buf.indexOf('\n', start)) {
        this.#line(buf.slice(start, nl), out);
        start = nl + 1;
      }
      this.#pending = start < buf.length ? buf.slice(start) : '';
      return out;
    }
    for (let i = start; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(buf.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < buf.length) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#lastWasCR = true;
        }
      }
      start = i + 1;
    }
    this.#pending = start < buf.length ? buf.slice(start) : '';
    buf = '';
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line.length === 0) {
      if (this.#data.length > 0 || this.#event !== undefined) {
        out.push({ event: this.#event, data: this.#data.join('\n') });
      }
      this.#event = undefined;
      this.#data = [];
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }
}

/** One SSE frame. `event` is omitted for OpenAI-style chunks. */
export function encodeSse(event: string | undefined, data: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
