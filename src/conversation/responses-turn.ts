// Conversation state of the Responses API (DESIGN Part 3): before routing, a
// `previous_response_id` is looked up among this key's stored responses; a chain the upstream keeps
// itself (native pass-through) stays on the deployment that started it, any other chain has the stored
// items put in front of the new input. After the answer, the response is stored unless `store: false`.
import { GatewayError } from '../core/errors.ts';
import type { DeploymentConfig, ModelConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { isObject, type JsonObject } from '../core/json.ts';
import type { ResponsesFacts } from '../dialects/openai-responses/validate.ts';
import type { ResponseStore } from '../store/response-store.ts';
import { servesResponsesNatively } from '../registry.ts';

export interface ResponsesTurn {
  facts: ResponsesFacts;
  keyId: string;
  /** The stored conversation before this turn ([] when it starts one). */
  history: unknown[];
  /** This turn's own input items. */
  input: unknown[];
  /** The stored response this turn continues: only this turn's items are stored, the rest by reference. */
  previousId: string | null;
}

/** What one key may hold in stored responses (responses_store_max_bytes_per_key and _turns_per_key). */
export interface StoreQuota {
  maxBytes: number;
  maxTurns: number;
}

export interface PreparedTurn {
  turn: ResponsesTurn;
  /** The model, narrowed to the deployment a native chain continues on. */
  model: ModelConfig;
  /** The request rewritten with the stored items in front (null: forward the caller's body). */
  body: JsonObject | null;
}

export async function prepareResponsesTurn(
  responses: ResponseStore,
  o: { key: KeyRecord; facts: ResponsesFacts; parsed: JsonObject; model: ModelConfig; now: number; quota: StoreQuota },
): Promise<PreparedTurn> {
  const input = inputItems(o.parsed.input);
  const turn: ResponsesTurn = { facts: o.facts, keyId: o.key.id, history: [], input, previousId: null };
  // A turn to be stored is refused before it is served when the key holds all it may: never answered and
  // then forgotten.
  if (o.facts.responses.store) await checkQuota(responses, o.key.id, o.quota, o.now);
  // Background mode is answered in the foreground: an upstream's queued job would finish after the
  // gateway's part is over, unbilled and unknown to GET /v1/responses/{id} here.
  const { background, ...foreground } = o.parsed;
  const parsed = background === undefined ? o.parsed : foreground;
  const rewritten = parsed === o.parsed ? null : parsed;
  const id = o.facts.responses.previousResponseId;
  if (id === null) return { turn, model: o.model, body: rewritten };
  const row = await responses.get(id, o.key.id, o.now);
  if (row === null)
    throw new GatewayError('previous_response_not_found', {
      message: `Previous response with id '${id}' not found.`,
      param: 'previous_response_id',
    });
  turn.history = parseItems(row.items);
  turn.previousId = row.id;
  if (row.native) {
    const same = o.model.deployments.find((d) => d.id === row.deployment && servesResponsesNatively(d));
    if (same !== undefined) return { turn, model: { ...o.model, deployments: [same] }, body: rewritten };
  }
  const { previous_response_id: _dropped, ...rest } = parsed;
  return { turn, model: o.model, body: { ...rest, input: [...turn.history.map(forResend), ...input] } };
}

/**
 * A token count's request with the conversation it continues: `previous_response_id` is looked up among
 * this key's stored responses only, and another key's id is refused exactly as an unknown one, so a count
 * tells no caller whether another key's response exists or how large it is. A chain the upstream keeps
 * itself is forwarded as it is; any other has the stored items put in front of the new input.
 */
export async function countedTurn(
  responses: Pick<ResponseStore, 'get'>,
  o: { keyId: string; text: string; value: unknown; now: number },
): Promise<{ text: string; value: unknown }> {
  if (!isObject(o.value) || o.value.previous_response_id === undefined) return o;
  const id = o.value.previous_response_id;
  const row = typeof id === 'string' && id !== '' ? await responses.get(id, o.keyId, o.now) : null;
  if (row === null)
    throw new GatewayError('previous_response_not_found', {
      message: `Previous response with id '${String(id)}' not found.`,
      param: 'previous_response_id',
    });
  if (row.native) return o;
  const { previous_response_id: _dropped, ...rest } = o.value;
  const value = { ...rest, input: [...parseItems(row.items).map(forResend), ...inputItems(o.value.input)] };
  return { text: JSON.stringify(value), value };
}

/** Stores the answered response (a JSON text as the caller received it) unless the caller said `store: false`. */
export async function storeResponsesTurn(
  store: { responses: ResponseStore; retentionMs: number },
  o: { turn: ResponsesTurn; responseText: string | null; deployment: DeploymentConfig; now: number },
): Promise<void> {
  if (!o.turn.facts.responses.store || o.responseText === null) return;
  let response: unknown;
  try {
    response = JSON.parse(o.responseText);
  } catch {
    return;
  }
  if (
    !isObject(response) ||
    typeof response.id !== 'string' ||
    (response.status !== 'completed' && response.status !== 'incomplete')
  )
    return;
  const output = Array.isArray(response.output) ? response.output : [];
  await store.responses.put({
    id: response.id,
    keyId: o.turn.keyId,
    deployment: o.deployment.id,
    native: servesResponsesNatively(o.deployment),
    createdAt: o.now,
    expiresAt: o.now + store.retentionMs,
    response: o.responseText,
    // Only what this turn adds: the conversation before it is the stored chain's.
    items: JSON.stringify(
      o.turn.previousId === null ? [...o.turn.history, ...o.turn.input, ...output] : [...o.turn.input, ...output],
    ),
    previousId: o.turn.previousId,
  });
}

async function checkQuota(
  responses: Pick<ResponseStore, 'usage'>,
  keyId: string,
  quota: StoreQuota,
  now: number,
): Promise<void> {
  const held = await responses.usage(keyId, now);
  if (held.turns < quota.maxTurns && held.bytes < quota.maxBytes) return;
  const [what, setting, limit] =
    held.turns >= quota.maxTurns
      ? [`${held.turns} stored responses`, 'responses_store_max_turns_per_key', `${quota.maxTurns} responses`]
      : [`${held.bytes} bytes of stored responses`, 'responses_store_max_bytes_per_key', `${quota.maxBytes} bytes`];
  throw new GatewayError('stored_responses_quota_exceeded', {
    message: `This key holds ${what}, its limit of ${limit} (${setting}): send store: false, or delete stored responses (DELETE /v1/responses/{id}) or wait for them to expire.`,
    param: 'store',
  });
}

/** `input` as a list of items: a string is one user message. */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string')
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : [];
}

function parseItems(text: string): unknown[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/**
 * A stored item as input again: output ids are the upstream's that made them, and an upstream that did
 * not would look them up and fail; reasoning items keep theirs (their encrypted content is tied to it).
 */
function forResend(item: unknown): unknown {
  if (!isObject(item) || item.type === 'reasoning' || item.id === undefined) return item;
  const { id: _id, ...rest } = item;
  return rest;
}
