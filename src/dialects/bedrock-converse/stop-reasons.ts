// The hub's finish reasons as Converse's `stopReason` values (the inverse of the Bedrock provider's reading).
import type { FinishReason } from '../../spec/form.ts';

export function converseStopReason(reason: FinishReason): string {
  switch (reason) {
    case 'stop-sequence':
      return 'stop_sequence';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
    case 'refusal':
      return 'content_filtered';
    case 'context-window':
      return 'model_context_window_exceeded';
    default:
      return 'end_turn';
  }
}
