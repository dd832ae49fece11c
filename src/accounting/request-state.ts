// Per-request bookkeeping that ends up in the usage row, metrics and logs. One instance per request.
import type { Dialect } from '../core/dialect.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import type { RequestTrace } from '../observability/tracing.ts';

export class RequestState {
  readonly requestId: string;
  readonly dialect: Dialect;
  readonly endpoint: string;
  readonly startedAt = performance.now();
  readonly startedWall = Date.now();
  key: KeyRecord | null = null;
  model = '';
  stream = false;
  deployment: string | null = null;
  attempts = 0;
  status = 0;
  errorCode: string | null = null;
  /** 'panic' when the answer came from a deployment sent to although every one was cooling down. */
  routing: string | null = null;
  usage: Usage = emptyUsage();
  ttfbMs: number | null = null;
  costNanos = 0;
  /** The request's server span when tracing is on. */
  trace: RequestTrace | null = null;

  constructor(opts: { requestId: string; dialect: Dialect; endpoint: string }) {
    this.requestId = opts.requestId;
    this.dialect = opts.dialect;
    this.endpoint = opts.endpoint;
  }

  markFirstByte(): void {
    if (this.ttfbMs === null) this.ttfbMs = Math.round(performance.now() - this.startedAt);
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }
}
