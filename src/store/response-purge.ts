// Expired stored responses and logged bodies past their retention are removed in the background: once at
// start, then every ten minutes.
import type { ResponseStore } from './response-store.ts';
import type { Store } from './store.ts';
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

/** Logged bodies past their retention are removed the same way: at start, then every interval. */
export function startBodyPurge(
  store: Pick<Store, 'purgeBodies'>,
  retentionMs: number,
  log: Logger,
  everyMs = PURGE_EVERY_MS,
): () => void {
  const run = (): void => {
    store.purgeBodies(Date.now() - retentionMs).then(
      (n) => {
        if (n > 0) log.info({ purged: n }, 'logged request bodies past their retention removed');
      },
      (err: unknown) => log.warn({ err: String(err) }, 'could not remove old logged bodies; tried again later'),
    );
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
