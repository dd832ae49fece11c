// One shared interval checks every attempt's clocks, instead of a timer per attempt. Per request that
// is a Set add and delete rather than creating, listing and clearing a native timer (undici keeps its
// own socket timeouts the same way). Clocks fire up to SWEEP_MS late, which is nothing next to upstream
// timeouts of seconds; they never fire early.

/** Something with a due time, asked on every sweep while it is registered. */
export interface Sweepable {
  check(now: number): void;
}

export const SWEEP_MS = 50;
/** Sweeps with nothing registered before the interval stops (a new registration restarts it). */
const IDLE_SWEEPS = 40;

const active = new Set<Sweepable>();
let interval: NodeJS.Timeout | null = null;
let idleSweeps = 0;

function sweep(): void {
  if (active.size === 0) {
    if (++idleSweeps >= IDLE_SWEEPS && interval !== null) {
      clearInterval(interval);
      interval = null;
    }
    return;
  }
  idleSweeps = 0;
  const now = performance.now();
  for (const item of active) item.check(now);
}

export function register(item: Sweepable): void {
  active.add(item);
  if (interval === null) {
    idleSweeps = 0;
    interval = setInterval(sweep, SWEEP_MS);
    // Clocks never keep the process alive on their own.
    interval.unref();
  }
}

export function unregister(item: Sweepable): void {
  active.delete(item);
}
