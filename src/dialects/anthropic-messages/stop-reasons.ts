// Anthropic stop_reason ⇄ the hub's finish reason (shared/specs/STREAMING.md §4).
import type { FinishReason } from '../../spec/form.ts';
import type { StopReason } from './wire.ts';

export const STOP_REASON_TO_HUB: Readonly<Record<StopReason, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop-sequence',
  max_tokens: 'length',
  model_context_window_exceeded: 'context-window',
  tool_use: 'tool-calls',
  refusal: 'refusal',
  pause_turn: 'pause',
};

export const HUB_TO_STOP_REASON: Readonly<Record<FinishReason, StopReason>> = {
  stop: 'end_turn',
  'stop-sequence': 'stop_sequence',
  length: 'max_tokens',
  'context-window': 'model_context_window_exceeded',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  refusal: 'refusal',
  pause: 'pause_turn',
  error: 'end_turn',
  other: 'end_turn',
};

/** Unknown or missing reasons read as a normal end. */
export function finishOfStopReason(stop: unknown): FinishReason {
  return typeof stop === 'string' && Object.hasOwn(STOP_REASON_TO_HUB, stop)
    ? STOP_REASON_TO_HUB[stop as StopReason]
    : 'stop';
}
