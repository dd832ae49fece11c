// Reasoning controls between the dialects: OpenAI reasoning_effort ⇄ Anthropic thinking budgets and effort.
import type { EffortLevel, ThinkingConfig } from './wire-anthropic.ts';
import type { ReasoningEffort } from './wire-openai.ts';

/** Anthropic's floor for thinking.budget_tokens. */
export const MIN_THINKING_BUDGET = 1024;

/** Thinking budget sent to Anthropic-style upstreams for each reasoning_effort (`none` disables thinking). */
export const EFFORT_TO_THINKING_BUDGET: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 32768,
};

/** reasoning_effort for a thinking budget: the largest effort whose budget the request's budget reaches. */
export function effortForBudget(budget: number): ReasoningEffort {
  if (budget >= EFFORT_TO_THINKING_BUDGET.high) return 'high';
  if (budget >= EFFORT_TO_THINKING_BUDGET.medium) return 'medium';
  if (budget >= EFFORT_TO_THINKING_BUDGET.low) return 'low';
  return 'minimal';
}

/** OpenAI-compatible servers that speak reasoning_effort rarely know `max`; `xhigh` is the nearest. */
export function effortForAnthropicEffort(effort: EffortLevel): ReasoningEffort {
  return effort === 'max' ? 'xhigh' : effort;
}

/** reasoning_effort that a messages request's thinking/effort settings ask for, or undefined for none. */
export function effortForThinking(thinking: ThinkingConfig | undefined, effort: EffortLevel | null | undefined): ReasoningEffort | undefined {
  if (effort !== undefined && effort !== null) return effortForAnthropicEffort(effort);
  if (thinking === undefined || thinking.type === 'disabled') return undefined;
  if (thinking.type === 'adaptive') return 'medium';
  return effortForBudget(thinking.budget_tokens);
}
