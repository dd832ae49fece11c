// A stop that cuts nothing a rollout can avoid (docs/operations.md, "Stopping"): at the signal readiness
// fails while the listener keeps serving for drain_delay_s (a load balancer needs that long to send new
// connections elsewhere); then the listener closes, requests in flight run on until shutdown_grace_s after
// the signal, and the process exits as soon as nothing is left. Whatever still runs when the grace is up is
// stopped cleanly (a stream ends with an error event in its caller's dialect, and every request writes
// its row) and a second later its connection is cut.
import type { Server } from 'node:http';
import type { GatewayConfig } from '../core/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Readiness } from '../observability/readiness.ts';
import { stopAllAttempts } from '../routing/attempt-watch.ts';

/** Connections that went idle since the last look are closed this often while requests finish. */
const IDLE_SWEEP_MS = 100;
/** After the grace, what was stopped gets this long to send its last event before its connection is cut. */
const CUT_AFTER_MS = 1_000;
/** Requests cut at the end of the grace queue their rows as they unwind: waited for this long at most. */
const UNWIND_MS = 3_000;

export interface GracefulStopOptions {
  config: Pick<GatewayConfig, 'shutdownGraceMs' | 'drainDelayMs'>;
  log: Logger;
  server: Server;
  readiness: Pick<Readiness, 'draining'>;
  /** Requests whose usage row is not queued yet. */
  inFlight: () => number;
  /** At the signal: what stops at once (the key poll). */
  onStopping: () => void;
  /** When the drain delay is over and the listener closes: long-lived streams (MCP sessions') end then. */
  onClosing?: () => void;
  /** After the last request: flushes usage and closes the stores; the process then exits. */
  release: () => Promise<void>;
}

/**
 * The signal handler. SIGINT (a terminal's Ctrl-C: no load balancer in front) skips the drain delay; a
 * second signal ends the drain delay and the grace at once.
 */
export function gracefulStop(opts: GracefulStopOptions): (signal: string) => void {
  const { log, server } = opts;
  let hurry: (() => void) | null = null;
  let started = false;
  return (signal) => {
    if (started) {
      log.warn({ signal }, 'second signal: requests still running are stopped now');
      hurry?.();
      return;
    }
    started = true;
    run(opts, signal, (h) => {
      hurry = h;
    }).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: String(err) }, 'shutting down failed');
        process.exit(1);
      },
    );
  };
  async function run(o: GracefulStopOptions, signal: string, onHurry: (h: () => void) => void): Promise<void> {
    const startedAt = Date.now();
    o.readiness.draining = true;
    o.onStopping();
    const drainMs = signal === 'SIGINT' ? 0 : o.config.drainDelayMs;
    log.info(
      { signal, drainDelayS: drainMs / 1000, shutdownGraceS: o.config.shutdownGraceMs / 1000 },
      'shutting down: /readyz answers 503; new connections are served during the drain delay, then requests in flight finish within the grace',
    );
    let graceOver = false;
    let cut: NodeJS.Timeout | null = null;
    const endGrace = (): void => {
      if (graceOver) return;
      graceOver = true;
      const stopped = stopAllAttempts();
      if (stopped > 0)
        log.warn({ requests: stopped }, 'shutting down: grace over; requests still running end with an error');
      cut = setTimeout(() => server.closeAllConnections(), CUT_AFTER_MS);
    };
    const grace = setTimeout(endGrace, o.config.shutdownGraceMs);
    let endDrain = (): void => undefined;
    const drained = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainMs);
      endDrain = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    onHurry(() => {
      endDrain();
      endGrace();
    });
    await drained;
    o.onClosing?.();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    log.info(
      { inFlight: o.inFlight(), afterMs: Date.now() - startedAt },
      'shutting down: no new connections; waiting for requests in flight',
    );
    // Connections whose request ended since (a stream that began before the signal) go idle: closed
    // as they do, so the listener's close is not held up by a keep-alive timer.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    await closed;
    clearInterval(sweep);
    clearTimeout(grace);
    for (const until = Date.now() + UNWIND_MS; o.inFlight() > 0 && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 20));
    if (cut !== null) clearTimeout(cut);
    log.info({ afterMs: Date.now() - startedAt }, 'shutting down: requests done; flushing usage');
    await o.release();
  }
}
