// GET and DELETE /v1/responses/{id}: a response the gateway stored for this key. Another key's id, an
// expired one and an unknown one are the same 404, so ids cannot be probed across keys.
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { ResponseStore } from './response-store.ts';

export async function storedResponse(
  responses: ResponseStore,
  opts: { key: KeyRecord; id: string | null; method: string; now: number },
): Promise<string> {
  const { id } = opts;
  const notFound = (): GatewayError =>
    new GatewayError('response_not_found', { message: `Response with id '${id ?? ''}' not found.` });
  if (id === null || id === '') throw notFound();
  if (opts.method === 'DELETE') {
    if (!(await responses.delete(id, opts.key.id))) throw notFound();
    return JSON.stringify({ id, object: 'response', deleted: true });
  }
  const row = await responses.get(id, opts.key.id, opts.now);
  if (row === null) throw notFound();
  return row.response;
}
