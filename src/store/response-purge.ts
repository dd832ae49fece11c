// Expired stored responses are removed in the background: once at start, then every ten minutes.
import type { ResponseStore } from './response-store.ts';
import type { Logger } from '../observability/logger.ts';

const PURGE_EVERY_MS = 10 * 60_000;

/** Starts the purge; the returned function stops it. */
export function startResponsePurge(store: ResponseStore, log: Logger, everyMs = PURGE_EVERY_MS): () => void {
  const run = (): void => {
    store.purge(Date.now()).then(
      (n) => {
        if (n > 0) log.info({ purged: n }, 'expired stored responses removed');
      },
      (err: unknown) => log.warn({ err: String(err) }, 'could not remove expired stored responses; tried again later'),
    );
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
