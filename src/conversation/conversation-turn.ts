// `conversation` on POST /v1/responses, on every route: the conversation's items are the input's prefix
// (the upstream sees one plain request, so a translated route and a native one behave alike), and the
// turn's input and output items are appended once it is answered. A conversation the key does not have
// is a 404; with `previous_response_id` too, a 400 — never a 200 that forgets it.
import { GatewayError } from '../core/errors.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject, type JsonObject } from '../core/json.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import { conversationNotFound, parsedItems, storedItems } from './conversations-api.ts';
import { inputItems } from './responses-turn.ts';

export interface ConversationTurn {
  id: string;
  keyId: string;
  /** This turn's own input items, appended with the output once answered. */
  input: unknown[];
}

/** The conversation a Responses body names (`"conv_…"` or `{ "id": "conv_…" }`), or null. */
function conversationIdOf(body: JsonObject): string | null {
  const c = body.conversation;
  if (c === undefined || c === null) return null;
  const id = typeof c === 'string' ? c : isObject(c) ? c.id : undefined;
  if (typeof id !== 'string' || id === '')
    throw new GatewayError('invalid_request', {
      message: '`conversation` must be a conversation id or an object with an `id`.',
      param: 'conversation',
    });
  return id;
}

/**
 * A stored item as input again: item ids are the gateway's, which no upstream knows; reasoning items
 * keep theirs (their encrypted content is tied to it).
 */
function asInput(item: JsonObject): JsonObject {
  if (item.type === 'reasoning') return item;
  const { id: _id, status: _status, ...rest } = item;
  return rest;
}

export async function prepareConversationTurn(
  store: ConversationStore,
  o: { key: KeyRecord; parsed: JsonObject },
): Promise<{ turn: ConversationTurn; body: JsonObject } | null> {
  const id = conversationIdOf(o.parsed);
  if (id === null) return null;
  if (o.parsed.previous_response_id !== undefined && o.parsed.previous_response_id !== null)
    throw new GatewayError('invalid_request', {
      message: '`conversation` and `previous_response_id` cannot be used together.',
      param: 'conversation',
    });
  const items = await store.items(id, o.key.id);
  if (items === null) throw conversationNotFound(id, 'conversation');
  const input = inputItems(o.parsed.input);
  const { conversation: _conversation, ...rest } = o.parsed;
  return {
    turn: { id, keyId: o.key.id, input },
    body: { ...rest, input: [...parsedItems(items).map(asInput), ...input] },
  };
}

/** Appends the turn's input and the response's output items to the conversation. */
export async function appendConversationTurn(
  store: ConversationStore,
  turn: ConversationTurn,
  responseText: string,
): Promise<void> {
  const response: unknown = JSON.parse(responseText);
  const output = isObject(response) && Array.isArray(response.output) ? response.output : [];
  await store.append(turn.id, turn.keyId, storedItems([...turn.input, ...output]));
}

/** The response object as the caller reads it: `conversation` names the conversation it belongs to. */
export function withConversation(responseText: string, id: string): string {
  const response: unknown = JSON.parse(responseText);
  if (!isObject(response)) return responseText;
  response.conversation = { id };
  return JSON.stringify(response);
}
