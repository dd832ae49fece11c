// The 503 `overloaded` a shed request gets. Under three times what the loop can serve the refusals are
// most of the work left, so each costs as little as node:http allows: its body in each dialect is
// rendered once (a GatewayError a request would capture a stack trace and mask its message for each),
// with only the request id put in per request, and its headers are written as one flat list.
import type { ServerResponse } from 'node:http';
import type { Dialect } from '../core/dialect.ts';
import { GatewayError } from '../core/errors.ts';
import { renderError } from '../dialects/render-error.ts';

const ID_MARK = 'req_0verl0aded_id_mark';
const OVERLOADED = new GatewayError('overloaded');
/** Per dialect: the body before and after the request id (`after` null when the body has none). */
const BODIES = new Map<Dialect, { before: string; after: string | null }>();

function bodyParts(dialect: Dialect): { before: string; after: string | null } {
  let parts = BODIES.get(dialect);
  if (parts === undefined) {
    const body = renderError(dialect, OVERLOADED, ID_MARK);
    const at = body.indexOf(ID_MARK);
    parts =
      at === -1 ? { before: body, after: null } : { before: body.slice(0, at), after: body.slice(at + ID_MARK.length) };
    BODIES.set(dialect, parts);
  }
  return parts;
}

/** Answers 503 `overloaded` with `retry-after` in the caller's dialect, as sendError would. */
export function refuseOverloaded(res: ServerResponse, dialect: Dialect, requestId: string): void {
  const parts = bodyParts(dialect);
  const body = parts.after === null ? parts.before : parts.before + requestId + parts.after;
  res.writeHead(OVERLOADED.status, [
    'content-type',
    'application/json',
    'content-length',
    String(Buffer.byteLength(body)),
    'x-request-id',
    requestId,
    'request-id',
    requestId,
    'retry-after',
    '1',
  ]);
  res.end(body);
}
