// GET /v1/responses/{id}/input_items: the items a stored response was made from — the conversation before
// it and the turn's own input — a page at a time, as `responses.inputItems.list` reads them. Items the
// caller sent without an id get one derived from the response id and their place, so a page's `after`
// cursor finds the same item on every call.
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject } from '../core/json.ts';
import type { ResponseStore } from './response-store.ts';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** Item types the API returns with a status; an item stored without one was complete when it was sent. */
const WITH_STATUS = new Set(['message', 'function_call', 'function_call_output']);

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

export async function storedInputItems(
  responses: ResponseStore,
  opts: { key: KeyRecord; id: string | null; url: string | undefined; now: number },
): Promise<string> {
  const { id } = opts;
  const url = opts.url ?? '';
  const page = pageOf(new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''));
  const row = id === null || id === '' ? null : await responses.get(id, opts.key.id, opts.now);
  if (row === null)
    throw new GatewayError('response_not_found', { message: `Response with id '${id ?? ''}' not found.` });
  const items = JSON.parse(row.items) as unknown[];
  const response = JSON.parse(row.response) as { output?: unknown };
  const outputs = Array.isArray(response.output) ? response.output.length : 0;
  const base = row.id.startsWith('resp_') ? row.id.slice(5) : row.id;
  const input = items.slice(0, Math.max(0, items.length - outputs)).map((item, i) => asResource(item, `${base}_${i}`));
  if (page.order === 'desc') input.reverse();
  let start = 0;
  if (page.after !== null) {
    const at = input.findIndex((item) => item.id === page.after);
    if (at === -1) throw bad(`No input item with id '${page.after}' in response '${row.id}'.`, 'after');
    start = at + 1;
  }
  const data = input.slice(start, start + page.limit);
  return JSON.stringify({
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + data.length < input.length,
  });
}

export function pageOf(query: URLSearchParams): { limit: number; order: 'asc' | 'desc'; after: string | null } {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw bad(`limit must be an integer from 1 to ${MAX_LIMIT}.`, 'limit');
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw bad("order must be 'asc' or 'desc'.", 'order');
  return { limit, order, after: query.get('after') };
}

/** An input item in the shape the API lists it: a type, an id and, where the API has one, a status. */
export function asResource(item: unknown, suffix: string): Record<string, unknown> & { id: string } {
  const out: Record<string, unknown> = isObject(item)
    ? { ...item }
    : { type: 'message', role: 'user', content: String(item) };
  if (out.type === undefined && typeof out.role === 'string') out.type = 'message';
  const type = typeof out.type === 'string' ? out.type : 'item';
  if (type === 'message' && typeof out.content === 'string') {
    out.content =
      out.role === 'assistant'
        ? [{ type: 'output_text', text: out.content, annotations: [] }]
        : [{ type: 'input_text', text: out.content }];
  }
  if (WITH_STATUS.has(type) && out.status === undefined) out.status = 'completed';
  if (typeof out.id !== 'string' || out.id === '')
    out.id = `${type === 'message' ? 'msg' : type === 'function_call' ? 'fc' : 'item'}_${suffix}`;
  return out as Record<string, unknown> & { id: string };
}
