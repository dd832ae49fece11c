// The pino logger. Request headers are never logged; the redaction paths are a second line of defence.
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(opts: { level?: string } = {}): Logger {
  return pino({
    level: opts.level ?? process.env.MODELGATE_LOG_LEVEL ?? 'info',
    base: { service: 'modelgate' },
    redact: { paths: ['key', 'apiKey', 'api_key', 'authorization', 'headers.authorization', 'headers["x-api-key"]'], censor: '[masked]' },
  });
}
