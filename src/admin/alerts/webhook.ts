// One alert to one webhook: modelgate's JSON body or a Slack incoming-webhook body, POSTed with undici and
// tried again with a doubling pause while the receiver fails (a network error, 429 or 5xx).
import { request } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AlertWebhook } from '../../core/config-types.ts';

export interface Alert {
  /** The event's identity: the same event is never sent twice. */
  id: string;
  event: string;
  /** Unix ms. */
  at: number;
  /** One line for a person (Slack's text). */
  summary: string;
  data: Record<string, unknown>;
}

export interface DeliveryOptions {
  attempts: number;
  firstPauseMs: number;
  timeoutMs: number;
}

export const DELIVERY: DeliveryOptions = { attempts: 5, firstPauseMs: 1_000, timeoutMs: 10_000 };

export interface Delivery {
  ok: boolean;
  attempts: number;
  /** The last failure (status or error), never the webhook's URL, which may hold a secret (Slack's does). */
  error: string | null;
}

export function bodyOf(alert: Alert, format: AlertWebhook['format']): string {
  if (format === 'slack')
    return JSON.stringify({
      text: alert.summary,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `*modelgate ${alert.event}*\n${alert.summary}` } }],
    });
  return JSON.stringify({
    id: alert.id,
    event: alert.event,
    at: new Date(alert.at).toISOString(),
    summary: alert.summary,
    data: alert.data,
  });
}

export async function deliver(hook: AlertWebhook, alert: Alert, opts: DeliveryOptions = DELIVERY): Promise<Delivery> {
  const body = bodyOf(alert, hook.format);
  let error: string | null = null;
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    try {
      const res = await request(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'modelgate-alerts',
          'x-modelgate-alert': alert.id,
        },
        body,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode < 300) return { ok: true, attempts: attempt, error: null };
      error = `HTTP ${res.statusCode}`;
      // A receiver that refuses the body (4xx but 408/429) refuses it again: trying more only repeats it.
      if (res.statusCode < 500 && res.statusCode !== 408 && res.statusCode !== 429)
        return { ok: false, attempts: attempt, error };
    } catch (err) {
      error = (err as { code?: string }).code ?? (err as Error).name;
    }
    if (attempt < opts.attempts) await sleep(opts.firstPauseMs * 2 ** (attempt - 1), undefined, { ref: false });
  }
  return { ok: false, attempts: opts.attempts, error };
}
