// The Conversations API: POST /v1/conversations; GET, POST (update) and DELETE /v1/conversations/{id};
// GET and POST /v1/conversations/{id}/items; GET and DELETE /v1/conversations/{id}/items/{item_id}.
// A conversation belongs to the key that made it: another key's id is the same 404 as an unknown one.
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject, type JsonObject } from '../core/json.ts';
import { checkItem } from '../dialects/openai-responses/validate.ts';
import type { ConversationItem, ConversationStore, Conversation } from '../store/conversation-store.ts';
import { asResource, pageOf } from '../store/input-items.ts';

/** Items one create call may add, as OpenAI allows. */
const MAX_ITEMS_PER_CALL = 20;
const MAX_METADATA_PAIRS = 16;

export function conversationNotFound(id: string, param?: string): GatewayError {
  return new GatewayError('not_found', { message: `Conversation with id '${id}' not found.`, param });
}

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

function conversationJson(c: Conversation): string {
  return `{"id":${JSON.stringify(c.id)},"object":"conversation","created_at":${c.createdAt},"metadata":${c.metadata}}`;
}

function checkMetadata(v: unknown): string {
  if (v === undefined || v === null) return '{}';
  if (!isObject(v)) throw bad('`metadata` must be an object of strings.', 'metadata');
  const entries = Object.entries(v);
  if (entries.length > MAX_METADATA_PAIRS)
    throw bad(`\`metadata\` holds at most ${MAX_METADATA_PAIRS} pairs.`, 'metadata');
  for (const [k, val] of entries)
    if (typeof val !== 'string') throw bad(`metadata.${k} must be a string.`, `metadata.${k}`);
  return JSON.stringify(v);
}

/** Items as stored: each with an id, a type and, where the API has one, a status (input-items.ts's shape). */
export function storedItems(items: readonly unknown[]): ConversationItem[] {
  return items.map((item) => {
    const resource = asResource(item, randomBytes(16).toString('hex'));
    return { id: resource.id, item: JSON.stringify(resource) };
  });
}

function checkItems(v: unknown, param: string, required: boolean): unknown[] {
  if (v === undefined || v === null) {
    if (required) throw bad(`\`${param}\` is required: an array of items.`, param);
    return [];
  }
  if (!Array.isArray(v)) throw bad(`\`${param}\` must be an array of items.`, param);
  if (v.length > MAX_ITEMS_PER_CALL) throw bad(`\`${param}\` holds at most ${MAX_ITEMS_PER_CALL} items.`, param);
  v.forEach((item, i) => checkItem(item, `${param}[${i}]`));
  return v;
}

function listJson(data: string[], ids: string[], hasMore: boolean): string {
  const first = ids[0] ?? null;
  const last = ids.at(-1) ?? null;
  return `{"object":"list","data":[${data.join(',')}],"first_id":${JSON.stringify(first)},"last_id":${JSON.stringify(last)},"has_more":${hasMore}}`;
}

export interface ConversationCall {
  key: KeyRecord;
  method: string;
  /** null on POST /v1/conversations. */
  path: { id: string; items: boolean; itemId: string | null } | null;
  url: string | undefined;
  readBody: () => Promise<{ value: unknown }>;
  now: number;
}

export async function answerConversations(store: ConversationStore, call: ConversationCall): Promise<string> {
  const { key, path } = call;
  if (path === null) {
    const { value } = await call.readBody();
    const body = value === undefined || value === null ? {} : value;
    if (!isObject(body)) throw bad('The request body must be a JSON object.', '');
    const items = checkItems(body.items, 'items', false);
    const conversation: Conversation = {
      id: `conv_${randomBytes(24).toString('hex')}`,
      keyId: key.id,
      createdAt: Math.floor(call.now / 1000),
      metadata: checkMetadata(body.metadata),
    };
    await store.create(conversation, storedItems(items));
    return conversationJson(conversation);
  }
  const { id } = path;
  if (path.itemId !== null) {
    if (call.method === 'DELETE') {
      if (!(await store.deleteItem(id, key.id, path.itemId))) throw itemNotFound(id, path.itemId);
      const c = await store.get(id, key.id);
      if (c === null) throw conversationNotFound(id);
      return conversationJson(c);
    }
    const items = await store.items(id, key.id);
    if (items === null) throw conversationNotFound(id);
    const found = items.find((i) => i.id === path.itemId);
    if (found === undefined) throw itemNotFound(id, path.itemId);
    return found.item;
  }
  if (path.items) {
    if (call.method === 'POST') {
      const { value } = await call.readBody();
      if (!isObject(value)) throw bad('The request body must be a JSON object.', '');
      const stored = storedItems(checkItems(value.items, 'items', true));
      if (!(await store.append(id, key.id, stored))) throw conversationNotFound(id);
      return listJson(
        stored.map((s) => s.item),
        stored.map((s) => s.id),
        false,
      );
    }
    return listItems(store, call, id);
  }
  if (call.method === 'DELETE') {
    if (!(await store.delete(id, key.id))) throw conversationNotFound(id);
    return `{"id":${JSON.stringify(id)},"object":"conversation.deleted","deleted":true}`;
  }
  if (call.method === 'POST') {
    const { value } = await call.readBody();
    if (!isObject(value) || value.metadata === undefined)
      throw bad('`metadata` is required: an object of strings.', 'metadata');
    const c = await store.update(id, key.id, checkMetadata(value.metadata));
    if (c === null) throw conversationNotFound(id);
    return conversationJson(c);
  }
  const c = await store.get(id, key.id);
  if (c === null) throw conversationNotFound(id);
  return conversationJson(c);
}

function itemNotFound(id: string, itemId: string): GatewayError {
  return new GatewayError('not_found', { message: `Item with id '${itemId}' not found in conversation '${id}'.` });
}

async function listItems(store: ConversationStore, call: ConversationCall, id: string): Promise<string> {
  const url = call.url ?? '';
  const page = pageOf(new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''));
  const items = await store.items(id, call.key.id);
  if (items === null) throw conversationNotFound(id);
  if (page.order === 'desc') items.reverse();
  let start = 0;
  if (page.after !== null) {
    const at = items.findIndex((i) => i.id === page.after);
    if (at === -1) throw bad(`No item with id '${page.after}' in conversation '${id}'.`, 'after');
    start = at + 1;
  }
  const data = items.slice(start, start + page.limit);
  return listJson(
    data.map((d) => d.item),
    data.map((d) => d.id),
    start + data.length < items.length,
  );
}

/** The parsed items of a conversation, oldest first. */
export function parsedItems(items: readonly ConversationItem[]): JsonObject[] {
  return items.map((i) => JSON.parse(i.item) as JsonObject);
}
