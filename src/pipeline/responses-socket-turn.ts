// One response relayed from an upstream's Responses WebSocket to the caller's: each upstream frame read
// by the Responses pass-through tap (the model renamed back to the caller's, credentials masked in error
// events, usage taken from the terminal event), sent on as one frame, under the caller's backpressure and
// the model's first-byte and idle timeouts. It ends at the terminal event or an `error` frame, or when
// either side goes or the upstream falls silent; what it ended with is the row's.
import type WebSocket from 'ws';
import type { ResponsesStreamTap } from '../dialects/openai-responses/passthrough-tap.ts';

export type TurnEnd =
  /** `response.completed`, `.incomplete` or `.failed`. */
  | { kind: 'finished' }
  /** The upstream's own `error` frame, forwarded; `status` as it says, else 502. */
  | { kind: 'error'; status: number; code: string | null }
  /** The upstream socket closed or broke mid-response. */
  | { kind: 'broken' }
  | { kind: 'timeout' }
  /** The caller's connection went. */
  | { kind: 'cut' };

/** Bytes the caller's socket may hold unsent before the upstream is paused, and resumed below. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/** `"type":"…"` as the first key of a frame (how every Responses event is written); null otherwise. */
const LEADING_TYPE = /^\s*\{\s*"type"\s*:\s*"([a-z_.]+)"/;

export class SocketTurn {
  readonly ended: Promise<TurnEnd>;
  /** The first upstream frame of this response has gone to the caller. */
  answered = false;
  readonly #upstream: WebSocket;
  readonly #client: WebSocket;
  readonly #tap: ResponsesStreamTap;
  readonly #idleMs: number;
  #timer: NodeJS.Timeout;
  #paused = false;
  #end!: (end: TurnEnd) => void;
  #over = false;

  constructor(o: {
    upstream: WebSocket;
    client: WebSocket;
    tap: ResponsesStreamTap;
    timeouts: { firstByteMs: number; idleMs: number };
  }) {
    this.#upstream = o.upstream;
    this.#client = o.client;
    this.#tap = o.tap;
    this.#idleMs = o.timeouts.idleMs;
    this.ended = new Promise((resolve) => {
      this.#end = resolve;
    });
    this.#timer = this.#arm(o.timeouts.firstByteMs);
  }

  #arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.finish({ kind: 'timeout' }), ms);
    timer.unref();
    return timer;
  }

  /** One text frame from the upstream. */
  frame(text: string): void {
    if (this.#over) return;
    const type = LEADING_TYPE.exec(text)?.[1] ?? null;
    // The tap reads Server-Sent Events: the frame is one event, on one data line.
    const line = text.includes('\n') || text.includes('\r') ? oneLine(text) : text;
    const out = this.#tap.push(Buffer.from(`${type === null ? '' : `event: ${type}\n`}data: ${line}\n\n`));
    const sse = out.toString('utf8');
    const at = sse.indexOf('data: ');
    if (at !== -1) this.#send(sse.slice(at + 6, sse.length - 2));
    if (!this.answered) {
      this.answered = true;
      clearTimeout(this.#timer);
      this.#timer = this.#arm(this.#idleMs);
    } else if (!this.#paused) this.#timer.refresh();
    if (type === 'error') this.finish(upstreamError(text));
    else if (this.#tap.finished) this.finish({ kind: 'finished' });
  }

  /** The turn has ended: a later upstream frame is between responses. */
  get over(): boolean {
    return this.#over;
  }

  /** Ends the turn (once); a later call changes nothing. */
  finish(end: TurnEnd): void {
    if (this.#over) return;
    this.#over = true;
    clearTimeout(this.#timer);
    if (this.#paused) this.#upstream.resume();
    this.#end(end);
  }

  #send(text: string): void {
    if (this.#client.readyState !== this.#client.OPEN) return;
    this.#client.send(text, () => {
      if (this.#paused && !this.#over && this.#client.bufferedAmount < LOW_WATER) {
        this.#paused = false;
        this.#upstream.resume();
        this.#timer = this.#arm(this.#idleMs);
      }
    });
    if (!this.#paused && this.#client.bufferedAmount > HIGH_WATER) {
      // A caller that reads slowly holds the upstream back; its silence is then not the upstream's.
      this.#paused = true;
      this.#upstream.pause();
      clearTimeout(this.#timer);
    }
  }
}

/** A frame written over several lines (pretty-printed JSON) as one line; a frame that is not JSON as it is. */
function oneLine(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text.replace(/[\r\n]+/g, ' ');
  }
}

function upstreamError(text: string): TurnEnd {
  try {
    const ev = JSON.parse(text) as { status?: unknown; error?: { code?: unknown }; code?: unknown };
    const code = ev.error?.code ?? ev.code;
    return {
      kind: 'error',
      status: typeof ev.status === 'number' && ev.status >= 400 && ev.status < 600 ? ev.status : 502,
      code: typeof code === 'string' ? code : null,
    };
  } catch {
    return { kind: 'error', status: 502, code: null };
  }
}
