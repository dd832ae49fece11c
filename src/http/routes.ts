// Exact path routing (SPEC §4.1, DESIGN.md): no trailing slash, no case folding; a query string is ignored.
// The endpoints themselves are the pipeline's table (pipeline/endpoint-table.ts, found by http/endpoint.ts's
// Router); here: the path of a request target, and the dialect of an answer where no endpoint decides it.
import type { Dialect } from '../core/dialect.ts';
import type { Endpoint } from './endpoint.ts';

export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  // RFC 9112 §3.2.2: a server must accept the absolute form (`POST http://host/v1/...`), which clients
  // configured with the gateway as a forward proxy send.
  if (url.charCodeAt(0) !== 47 /* / */) url = absolutePath(url);
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The path of an absolute-form target; other targets (`*`, authority form) are returned as they are. */
function absolutePath(url: string): string {
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  if (m === null) return url;
  const rest = url.slice(m[0].length);
  return rest === '' || rest.charCodeAt(0) === 63 /* ? */ ? `/${rest}` : rest;
}

/**
 * The dialect an error is written in where the path does not decide it: Anthropic-shaped under
 * /v1/messages, and for any caller that sends `anthropic-version` (the Anthropic SDK does, on
 * `models.list`, `models.retrieve` and endpoints the gateway does not have); else OpenAI.
 */
export function dialectForPath(path: string, anthropicVersion?: string | string[]): Dialect {
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/complete')) return 'anthropic';
  if (path.startsWith('/v1beta/') || path === '/v1beta') return 'gemini';
  return anthropicVersion === undefined ? 'openai' : 'anthropic';
}

/** An endpoint's error dialect for this caller: the shared GET routes answer Anthropic callers in kind. */
export function callerDialect(e: Endpoint<any>, anthropicVersion: string | string[] | undefined): Dialect {
  return e.anthropicCallers === true && anthropicVersion !== undefined ? 'anthropic' : e.dialect;
}

/**
 * The class of a path that no route matched, for metrics and logs: a handful of fixed names, so a
 * client probing made-up paths cannot grow the metrics without bound.
 */
export function endpointClass(path: string): string {
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/complete')) return 'anthropic';
  if (path.startsWith('/v1beta/')) return 'gemini';
  if (path.startsWith('/v1/')) return 'openai';
  if (path === '/admin' || path.startsWith('/admin/')) return 'admin';
  if (path === '/ui' || path.startsWith('/ui/')) return 'ui';
  return 'other';
}
