// Anthropic's thinking budgets against the hub's reasoning effort, both ways.
import type { ReasoningEffort } from '../../spec/form.ts';

/** Anthropic's floor for thinking.budget_tokens. */
export const MIN_THINKING_BUDGET = 1024;

/** Thinking budget sent to Anthropic-style upstreams for each effort (`none` disables thinking). */
export const EFFORT_TO_THINKING_BUDGET: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 32768,
};

/** The effort a thinking budget stands for: the largest effort whose budget the budget reaches. */
export function effortForBudget(budget: number): ReasoningEffort {
  if (budget >= EFFORT_TO_THINKING_BUDGET.high) return 'high';
  if (budget >= EFFORT_TO_THINKING_BUDGET.medium) return 'medium';
  if (budget >= EFFORT_TO_THINKING_BUDGET.low) return 'low';
  return 'minimal';
}
