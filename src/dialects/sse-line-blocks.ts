// Cuts an upstream SSE body into blocks of whole lines, so no pattern a pass-through tap looks for is
// split between two chunks. A block is the upstream's own bytes: a chunk that ends at a line end goes
// on as it came, uncopied.
import { GatewayError } from '../core/errors.ts';

/** A line this long without its end is a broken upstream, not an event to hold in memory (as the 64 MB cap on whole bodies). */
const MAX_LINE = 64 * 1048576;
const LF = 10;
const CR = 13;
const NO_BYTES = Buffer.alloc(0);

export class SseLineBlocks {
  /** The start of a line whose end has not arrived yet, in pieces (no copy until the line ends). */
  #carry: Buffer[] = [];
  #carryBytes = 0;

  /** The whole lines this chunk completes (empty when it completes none yet). */
  push(chunk: Uint8Array): Buffer {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // SSE lines may also end in a lone CR: looked for only when a chunk holds no LF, so LF and CRLF
    // streams pay nothing for it. What is carried holds no line end, so only the new chunk is searched.
    let lastEnd = bytes.lastIndexOf(LF);
    if (lastEnd === -1) lastEnd = bytes.lastIndexOf(CR);
    if (lastEnd === -1) {
      this.#hold(bytes);
      return NO_BYTES;
    }
    const lines = lastEnd === bytes.length - 1 ? bytes : bytes.subarray(0, lastEnd + 1);
    const block = this.#carryBytes === 0 ? lines : Buffer.concat([...this.#carry, lines]);
    this.#carry = [];
    this.#carryBytes = 0;
    if (lines !== bytes) this.#hold(bytes.subarray(lastEnd + 1));
    return block;
  }

  /** What is left when the body ends (a last line without its end; empty when none). */
  end(): Buffer {
    if (this.#carryBytes === 0) return NO_BYTES;
    const rest = Buffer.concat(this.#carry);
    this.#carry = [];
    this.#carryBytes = 0;
    return rest;
  }

  #hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#carry.push(bytes);
    this.#carryBytes += bytes.length;
    if (this.#carryBytes > MAX_LINE)
      throw new GatewayError('upstream_error', {
        message: `The upstream stream sent more than ${MAX_LINE / 1048576} MB without a line end.`,
      });
  }
}
