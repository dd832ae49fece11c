// A prom-client Histogram whose label sets are bound once and then observed in a handful of instructions.
// prom-client's own observe validates and hashes the labels on every call, even through a bound child;
// requests observe four to six histograms each, which made that hashing a measurable share of a
// request's CPU. A bound series keeps its bucket counts in a typed array and prom-client renders them at
// scrape time, in the same exposition as its own series (bucket, +Inf, sum, count; the label order of
// `labelNames`). Everything else (registration, reset, its own `observe`) stays prom-client's.
import { Histogram, type HistogramConfiguration } from 'prom-client';

/** One label set's series: what a request path holds and calls. */
export interface HistogramSeries {
  observe(value: number): void;
}

class BoundSeries implements HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly #bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    // A value that is not a number would poison the sum for the life of the process.
    if (Number.isNaN(value)) return;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** What prom-client's registry reads of a histogram value when it renders the exposition. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  /** null on bucket lines, absent on sum and count, as prom-client writes them. */
  exemplar: null | undefined;
}

export class SeriesHistogram<T extends string> extends Histogram<T> {
  readonly #name: string;
  readonly #labelNames: readonly T[];
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, BoundSeries>();

  constructor(config: HistogramConfiguration<T> & { labelNames: readonly T[]; buckets: number[] }) {
    super(config);
    this.#name = config.name;
    this.#labelNames = config.labelNames;
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
  }

  /** The series of one label set (values in `labelNames` order), made once; callers keep it. */
  series(...values: string[]): HistogramSeries {
    if (values.length !== this.#labelNames.length)
      throw new Error(`histogram ${this.#name} takes ${this.#labelNames.length} label values, not ${values.length}`);
    const key = values.join('\u0000');
    let s = this.#series.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = {};
      this.#labelNames.forEach((name, i) => {
        labels[name] = values[i];
      });
      s = new BoundSeries(Object.freeze(labels), this.#bounds);
      this.#series.set(key, s);
    }
    return s;
  }

  /** prom-client's registry renders from here (and `get` splays it); bound series follow prom-client's own. */
  async getForPromString(): Promise<Awaited<ReturnType<Histogram<T>['get']>>> {
    // biome-ignore lint/suspicious/noExplicitAny: prom-client's rendering method exists in its code, not in its types
    const data = await (Histogram.prototype as any).getForPromString.call(this);
    const values = data.values as ExportedValue[];
    const bucket = `${this.#name}_bucket`;
    for (const s of this.#series.values()) {
      if (s.count === 0) continue;
      let cumulative = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        cumulative += s.counts[i];
        values.push({
          labels: { le: this.#bounds[i] },
          sharedLabels: s.labels,
          value: cumulative,
          metricName: bucket,
          exemplar: null,
        });
      }
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: s.labels,
        value: s.count,
        metricName: bucket,
        exemplar: null,
      });
      values.push({
        labels: {},
        sharedLabels: s.labels,
        value: s.sum,
        metricName: `${this.#name}_sum`,
        exemplar: undefined,
      });
      values.push({
        labels: {},
        sharedLabels: s.labels,
        value: s.count,
        metricName: `${this.#name}_count`,
        exemplar: undefined,
      });
    }
    return data;
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets before this class's fields exist.
    if (#series in this) for (const s of this.#series.values()) s.clear();
  }
}
