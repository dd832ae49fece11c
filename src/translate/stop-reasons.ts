// Finish/stop reason tables between the dialects (shared/specs/STREAMING.md §4), exported for reuse.
import type { FinishReason } from './wire-openai.ts';
import type { StopReason } from './wire-anthropic.ts';

export const STOP_REASON_TO_FINISH_REASON: Readonly<Record<StopReason, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'stop',
};

export const FINISH_REASON_TO_STOP_REASON: Readonly<Record<FinishReason, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** Unknown or missing Anthropic reasons read as a normal end. */
export function finishReasonFor(stop: string | null | undefined): FinishReason {
  if (stop !== null && stop !== undefined && Object.hasOwn(STOP_REASON_TO_FINISH_REASON, stop)) {
    return STOP_REASON_TO_FINISH_REASON[stop as StopReason];
  }
  return 'stop';
}

export interface StopReasonOptions {
  finish: string | null | undefined;
  /** The text the model produced, to tell whether one of the caller's stop sequences ended it. */
  text: string;
  stopSequences: readonly string[] | undefined;
  /** vLLM's `choices[].stop_reason`: the matched stop string when it has one. */
  matched: unknown;
}

/** OpenAI finish_reason → Anthropic stop_reason plus stop_sequence, detecting a matched stop sequence where possible. */
export function stopReasonFor(opts: StopReasonOptions): { stopReason: StopReason; stopSequence: string | null } {
  const finish = opts.finish;
  const base: StopReason =
    finish !== null && finish !== undefined && Object.hasOwn(FINISH_REASON_TO_STOP_REASON, finish)
      ? FINISH_REASON_TO_STOP_REASON[finish as FinishReason]
      : 'end_turn';
  if (base !== 'end_turn' || opts.stopSequences === undefined || opts.stopSequences.length === 0) {
    return { stopReason: base, stopSequence: null };
  }
  if (typeof opts.matched === 'string' && opts.stopSequences.includes(opts.matched)) {
    return { stopReason: 'stop_sequence', stopSequence: opts.matched };
  }
  // Some servers leave the matched sequence at the end of the text instead of reporting it.
  for (const seq of opts.stopSequences) {
    if (seq.length > 0 && opts.text.endsWith(seq)) return { stopReason: 'stop_sequence', stopSequence: seq };
  }
  return { stopReason: 'end_turn', stopSequence: null };
}
