// Turns a Fault into what the writer must do: a replacement response, a damage point in the normal one,
// a byte trickle, or an action on the socket itself (reset, silence). Pure: no I/O here.

import { encodeSse } from '../../src/core/sse.ts';
import { mockErrorBody } from './mock-errors.ts';
import { responsesErrorFrame } from './mock-responses-wire.ts';
import type { Damage, PreparedResponse } from './mock-respond.ts';
import type { Fault, HeaderMap, MockDialect } from './mock-upstream-types.ts';

const DEFAULT_MALFORMED_SSE = 'data: {"id":"broken", "choices": [\n\n';
const DEFAULT_MALFORMED_JSON = '{"id": "broken",';
const DEFAULT_NON_JSON = '<html><body><h1>502 Bad Gateway</h1><p>mock proxy page</p></body></html>';

export type FaultPlan =
  | { action: 'reset' }
  | { action: 'silence' }
  | { action: 'write'; prepared: PreparedResponse; damage: Damage; trickle?: { intervalMs: number; bytes: number } };

export function planFault(options: {
  fault: Exclude<Fault, { kind: 'custom' | 'early-hints' | 'ignore-stream' | 'encoded' }> | undefined;
  prepared: PreparedResponse;
  dialect: MockDialect;
  /** Dialect headers (request id) without a content type. */
  baseHeaders: HeaderMap;
  requestId: string;
}): FaultPlan {
  const { fault, prepared, dialect, baseHeaders, requestId } = options;
  const none: Damage = { kind: 'none' };
  const errorResponse = (status: number, body: unknown, headers: HeaderMap | undefined): PreparedResponse => {
    const text = typeof body === 'string';
    const contentType = text ? 'text/plain; charset=utf-8' : 'application/json';
    return {
      status,
      headers: { ...baseHeaders, 'content-type': contentType, ...headers },
      pieces: [text ? body : JSON.stringify(body)],
      stream: false,
    };
  };
  switch (fault?.kind) {
    case undefined:
      return { action: 'write', prepared, damage: none };
    case 'reset':
      return { action: 'reset' };
    case 'hang-before-headers':
      return { action: 'silence' };
    case 'status': {
      const body = fault.body ?? mockErrorBody({ dialect, status: fault.status, requestId });
      return { action: 'write', prepared: errorResponse(fault.status, body, fault.headers), damage: none };
    }
    case 'hang-after-headers':
      return { action: 'write', prepared, damage: { kind: 'hang', at: fault.afterEvents ?? 0 } };
    case 'cut-stream':
      return { action: 'write', prepared, damage: { kind: 'cut', at: fault.afterEvents } };
    case 'malformed-sse': {
      const at = prepared.stream ? (fault.afterEvents ?? 1) : 0;
      const text = fault.text ?? (prepared.stream ? DEFAULT_MALFORMED_SSE : DEFAULT_MALFORMED_JSON);
      return { action: 'write', prepared, damage: { kind: 'tail', at, text } };
    }
    case 'stream-error': {
      const status = fault.status ?? (dialect === 'anthropic' ? 529 : 500);
      const body = mockErrorBody({ dialect, status, message: fault.message, requestId });
      if (!prepared.stream) return { action: 'write', prepared: errorResponse(status, body, undefined), damage: none };
      // In-stream errors carry no request_id; the event name is what the Anthropic SDK dispatches on.
      const frame =
        dialect === 'anthropic'
          ? encodeSse('error', JSON.stringify({ type: 'error', error: (body as { error: unknown }).error }))
          : dialect === 'responses'
            ? responsesErrorFrame((body as { error: { message: string } }).error.message, fault.afterEvents ?? 2)
            : encodeSse(undefined, JSON.stringify(body));
      return { action: 'write', prepared, damage: { kind: 'tail', at: fault.afterEvents ?? 2, text: frame } };
    }
    case 'non-json-200': {
      const replacement: PreparedResponse = {
        status: 200,
        headers: { ...baseHeaders, 'content-type': fault.contentType ?? 'text/html; charset=utf-8' },
        pieces: [fault.body ?? DEFAULT_NON_JSON],
        stream: false,
      };
      return { action: 'write', prepared: replacement, damage: none };
    }
    case 'trickle': {
      const trickle = { intervalMs: fault.intervalMs, bytes: Math.max(1, fault.chunkBytes ?? 8) };
      // One continuous byte stream: the trickle interval is the only pacing.
      return { action: 'write', prepared: { ...prepared, pieces: [prepared.pieces.join('')] }, damage: none, trickle };
    }
  }
}
