// The hub's reply stream: what every upstream stream decodes into and every client stream encodes from.
// A non-streamed reply is the fold of these events (hub/fold.ts), so no dialect writes a separate reply
// translator. Contract for decoders: `start` comes first (before any other event, except an `error` that
// comes before anything was read); at most one block (text, reasoning, tool call) is open at a time and
// each block's events come between its `-start` and `-end` with one index, distinct per block and
// increasing in start order (a dialect that interleaves blocks, as chat's parallel tool calls may, buffers
// them in its decoder); `finish` or `error` comes last. Usage events are cumulative; before `finish` the
// hub's relay passes the encoder one last `usage` event with what is billed.
import type { FinishReason, HubDialect, HubUsage } from './form.ts';

export type HubEvent =
  /** Once, first. */
  | { type: 'start'; id?: string }
  | { type: 'text-start'; index: number }
  /**
   * `json`: the text as a JSON string literal (quotes included), when the decoder read it that way from
   * the wire: an encoder may splice it instead of serialising the text again (the hot path).
   */
  | { type: 'text-delta'; index: number; text: string; json?: string }
  | { type: 'text-end'; index: number }
  | { type: 'reasoning-start'; index: number; id?: string; redacted?: string; encrypted?: string }
  | { type: 'reasoning-delta'; index: number; text: string }
  | { type: 'reasoning-signature'; index: number; signature: string }
  | { type: 'reasoning-end'; index: number }
  | {
      type: 'tool-call-start';
      index: number;
      id: string;
      name: string;
      kind?: 'function' | 'custom';
      signature?: string;
    }
  | { type: 'tool-call-delta'; index: number; input: string }
  | { type: 'tool-call-end'; index: number }
  /**
   * Cumulative usage so far; the last one counts. `partial`: the output count is not final yet (Anthropic's
   * message_start says 1), so a stream cut now bills what was delivered if that is more.
   */
  | { type: 'usage'; usage: HubUsage; partial?: boolean }
  /** The normal end; nothing follows it. */
  | { type: 'finish'; reason: FinishReason; stopSequence?: string }
  /** The upstream failed mid-stream; nothing follows it. */
  | {
      type: 'error';
      status: number;
      errorType: string;
      message: string;
      code?: string;
      param?: string;
      from?: HubDialect;
    };
