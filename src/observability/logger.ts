// The pino logger. Request headers are never logged; the redaction paths are a second line of defence.
import pino, { type Logger } from 'pino';

export type { Logger };

const LEVELS: ReadonlySet<string> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** `MODELGATE_LOG_LEVEL`: fatal, error, warn, info (default), debug, trace or silent. */
export function createLogger(opts: { level?: string } = {}): Logger {
  const wanted = (opts.level ?? process.env.MODELGATE_LOG_LEVEL ?? 'info').trim().toLowerCase();
  // An unknown level must not stop the gateway (pino throws on one): info, and say so.
  const level = LEVELS.has(wanted) ? wanted : 'info';
  const logger = pino({
    level,
    base: { service: 'modelgate' },
    // `"level":"info"` and `"time":"2026-01-01T00:00:00.000Z"`: what log collectors (Loki, Elasticsearch,
    // Cloud Logging) read without a mapping, where pino's defaults are numbers.
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['key', 'apiKey', 'api_key', 'authorization', 'headers.authorization', 'headers["x-api-key"]'],
      censor: '[masked]',
    },
  });
  if (level !== wanted)
    logger.warn(
      `MODELGATE_LOG_LEVEL "${wanted}" is not a level (fatal, error, warn, info, debug, trace, silent): logging at info`,
    );
  return logger;
}
