// Shedding on event-loop delay, as Envoy's overload manager does: when the loop runs late, every request
// already admitted is slowed by every new one, so new requests get a fast 503 in their dialect until the
// delay is back under the threshold. The delay is sampled on a timer, off the request path: a request reads
// one boolean.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the delay is looked at, and the window it is measured over. */
const SAMPLE_MS = 250;

export interface LoadShedderOptions {
  /** Event-loop delay (ms, the window's 99th percentile) past which new requests are refused; 0 = never. */
  thresholdMs: number;
  /** The delay over the last window, in ms; node:perf_hooks' histogram when not given (tests inject one). */
  delayMs?: () => number;
  sampleMs?: number;
}

export class LoadShedder {
  /** True while new requests are refused. */
  shedding = false;
  readonly #timer: NodeJS.Timeout | null;

  constructor(o: LoadShedderOptions) {
    if (o.thresholdMs <= 0) {
      this.#timer = null;
      return;
    }
    let delayMs = o.delayMs;
    if (delayMs === undefined) {
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      delayMs = () => {
        const p99 = histogram.percentile(99) / 1e6;
        histogram.reset();
        return p99;
      };
    }
    const sample = delayMs;
    this.#timer = setInterval(() => this.observe(sample(), o.thresholdMs), o.sampleMs ?? SAMPLE_MS);
    this.#timer.unref();
  }

  /** One window's delay: shed while it is over the threshold, admit again once it is under half of it. */
  observe(delayMs: number, thresholdMs: number): void {
    if (delayMs > thresholdMs) this.shedding = true;
    else if (delayMs < thresholdMs / 2) this.shedding = false;
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
  }
}
