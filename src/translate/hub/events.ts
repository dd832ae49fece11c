// The hub's reply stream: what every upstream stream decodes into and every client stream encodes from.
// A non-streamed reply is the fold of these events, so no dialect writes a separate reply translator.
import type { FinishReason, HubUsage } from './form.ts';

export type HubEvent =
  /** Once, first. */
  | { type: 'start'; id?: string }
  | { type: 'text-start'; index: number }
  | { type: 'text-delta'; index: number; text: string }
  | { type: 'text-end'; index: number }
  | { type: 'reasoning-start'; index: number; id?: string; redacted?: string; encrypted?: string }
  | { type: 'reasoning-delta'; index: number; text: string }
  | { type: 'reasoning-signature'; index: number; signature: string }
  | { type: 'reasoning-end'; index: number }
  | { type: 'tool-call-start'; index: number; id: string; name: string; kind?: 'function' | 'custom'; signature?: string }
  | { type: 'tool-call-delta'; index: number; input: string }
  | { type: 'tool-call-end'; index: number }
  /** Cumulative usage so far; the last one counts. */
  | { type: 'usage'; usage: HubUsage }
  /** The normal end; nothing follows it. */
  | { type: 'finish'; reason: FinishReason; stopSequence?: string }
  /** The upstream failed mid-stream; nothing follows it. */
  | { type: 'error'; status: number; errorType: string; message: string; code?: string };
