// What a request's stages did, counted where it is reported: the usage row's `redactions` and the
// modelgate_redactions_total counter by rule.
import type { RequestState } from '../accounting/record.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { StageCounter } from '../stages/stage.ts';

export class StageTally implements StageCounter {
  readonly #state: RequestState;
  readonly #metrics: Pick<Metrics, 'redacted'>;

  constructor(state: RequestState, metrics: Pick<Metrics, 'redacted'>) {
    this.#state = state;
    this.#metrics = metrics;
  }

  count(rule: string, n: number): void {
    this.#state.redactions += n;
    this.#metrics.redacted(rule, n);
  }
}
