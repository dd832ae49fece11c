// OpenAI chat finish_reason ⇄ the hub's finish reason, and the stop sequence a chat upstream does not name.
import type { FinishReason as HubFinish } from '../../spec/form.ts';
import type { FinishReason } from './wire.ts';

export const FINISH_REASON_TO_HUB: Readonly<Record<FinishReason, HubFinish>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

export const HUB_TO_FINISH_REASON: Readonly<Record<HubFinish, FinishReason>> = {
  stop: 'stop',
  'stop-sequence': 'stop',
  length: 'length',
  'context-window': 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
  error: 'stop',
  other: 'stop',
};

export interface ChatFinishOptions {
  finish: unknown;
  /** The text the model produced (its end suffices), to tell whether a stop sequence ended it. */
  text: string;
  stopSequences: readonly string[] | undefined;
  /** vLLM's `choices[].stop_reason`: the matched stop string when it has one. */
  matched: unknown;
  /** Tool calls were made: some servers (older vLLM, Ollama) say `stop` alongside them. */
  toolCalls: boolean;
}

/** The hub's finish for a chat upstream's finish_reason, detecting a matched stop sequence where possible. */
export function hubFinishOf(opts: ChatFinishOptions): { reason: HubFinish; stopSequence?: string } {
  const f = opts.finish;
  const base: HubFinish =
    typeof f === 'string' && Object.hasOwn(FINISH_REASON_TO_HUB, f) ? FINISH_REASON_TO_HUB[f as FinishReason] : 'stop';
  if (base !== 'stop') return { reason: base };
  const stops = opts.stopSequences;
  if (stops !== undefined && stops.length > 0) {
    if (typeof opts.matched === 'string' && stops.includes(opts.matched))
      return { reason: 'stop-sequence', stopSequence: opts.matched };
    // Some servers leave the matched sequence at the end of the text instead of reporting it.
    for (const seq of stops)
      if (seq.length > 0 && opts.text.endsWith(seq)) return { reason: 'stop-sequence', stopSequence: seq };
  }
  return { reason: opts.toolCalls ? 'tool-calls' : 'stop' };
}
