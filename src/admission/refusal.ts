// Turns an admission refusal into the status, stable code and message the caller sees (SPEC §7, DESIGN.md).
import { nanosToUsd } from '../core/budget.ts';
import type { AdmissionLimits, AdmissionSnapshot, RefusalReason } from './store.ts';

export interface RefusalInput {
  reason: RefusalReason;
  limits: AdmissionLimits;
  snapshot: AdmissionSnapshot;
  retryAfterSec?: number;
  /** Tokens the refused request reserves (prompt estimate + max_tokens), when known. */
  requestTokens?: number;
}

/** A request that reserves more tokens than the key's whole minute allows: no wait lets it in. */
export function neverFitsTpm(input: Pick<RefusalInput, 'reason' | 'limits' | 'requestTokens'>): boolean {
  return (
    input.reason === 'tpm' &&
    input.limits.tpm !== null &&
    input.requestTokens !== undefined &&
    input.requestTokens > input.limits.tpm
  );
}

export interface RefusalError {
  /** 403 for an exhausted budget (a retry cannot help), 429 for rate and concurrency limits. */
  status: 403 | 429;
  code: RefusalCode;
  message: string;
}

export type RefusalCode =
  | 'budget_exhausted'
  | 'token_budget_exhausted'
  | 'rate_limit_requests'
  | 'rate_limit_tokens'
  | 'concurrency_limit'
  | 'budget_in_flight';

/** Every code with its status, so a test can check each one is documented and reachable. */
export const REFUSAL_CODES: Readonly<Record<RefusalReason, { code: RefusalCode; status: 403 | 429 }>> = {
  budget: { code: 'budget_exhausted', status: 403 },
  token_budget: { code: 'token_budget_exhausted', status: 403 },
  in_flight: { code: 'budget_in_flight', status: 429 },
  rpm: { code: 'rate_limit_requests', status: 429 },
  tpm: { code: 'rate_limit_tokens', status: 429 },
  concurrency: { code: 'concurrency_limit', status: 429 },
};

/** "Left" is what a new reservation could still take: limit − spent − reserved, never below 0. */
export function refusalError(input: RefusalInput): RefusalError {
  const { reason, limits, snapshot } = input;
  const { code, status } = REFUSAL_CODES[reason];
  const retry = input.retryAfterSec === undefined ? '' : `; retry after ${input.retryAfterSec}s`;
  switch (reason) {
    case 'budget': {
      const budget = limits.budgetNanos ?? 0;
      const left = Math.max(0, budget - snapshot.spentNanos - snapshot.reservedNanos);
      return { status, code, message: `quota restricted: USD budget, ${usd(left)} left of ${usd(budget)}` };
    }
    case 'token_budget': {
      const budget = limits.tokenBudget ?? 0;
      const left = Math.max(0, budget - snapshot.spentTokens - snapshot.reservedTokens);
      return { status, code, message: `quota restricted: token budget, ${left} tokens left of ${budget}` };
    }
    case 'rpm':
      return { status, code, message: `rate limit reached: ${limits.rpm ?? 0} requests per minute${retry}` };
    case 'tpm': {
      const tpm = limits.tpm ?? 0;
      // OpenAI answers such a request 429 "Request too large" as well; what helps is named, not a wait.
      if (neverFitsTpm(input)) {
        return {
          status,
          code,
          message: `request too large for this key's rate limit: it reserves ${input.requestTokens} tokens (prompt + max_tokens) and the limit is ${tpm} tokens per minute; lower max_tokens or shorten the prompt`,
        };
      }
      const left = Math.max(0, tpm - snapshot.tpmUsed);
      return {
        status,
        code,
        message: `rate limit reached: ${tpm} tokens per minute, ${left} left this minute (the request reserves prompt + max_tokens)${retry}`,
      };
    }
    case 'in_flight':
      return {
        status,
        code,
        message: `budget nearly spent: requests already in flight hold as much of what is left as may be reserved at once${retry}`,
      };
    case 'concurrency':
      return {
        status,
        code,
        message: `concurrency limit reached: ${limits.maxConcurrency ?? 0} requests in flight${retry}`,
      };
  }
}

/** Dollars with up to 6 decimals (a micro-dollar is the smallest amount worth showing), at least 2. */
function usd(nanos: number): string {
  const fixed = nanosToUsd(nanos)
    .toFixed(6)
    .replace(/0{1,4}$/, '');
  return `$${fixed}`;
}
