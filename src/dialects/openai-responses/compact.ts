// POST /v1/responses/compact: a conversation's history made short. An upstream that serves the Responses
// API natively gets the caller's body on its own /responses/compact; every other route asks the model
// behind it for a summary (a plain Responses turn) and answers a `response.compaction` object as OpenAI
// shapes it: the caller's user messages, then one `compaction` item whose `encrypted_content` is the
// gateway's token of the summary. Any Responses client (Codex among them) sends those items back as the
// next turn's history; on a translated route the token is read back as a user message with the summary.
import { GatewayError } from '../../core/errors.ts';
import { isObject, type JsonObject } from '../../core/json.ts';
import { responsesId } from './response-object.ts';
import { validateResponsesRequest, type ResponsesFacts } from './validate.ts';

/** What the summarising turn asks of the model. */
export const COMPACT_PROMPT =
  'Summarise the conversation so far as a handoff to another assistant that continues it without seeing it: ' +
  "the user's goals and constraints, what has been done (files, commands, results), decisions made, and what " +
  'remains to do next. Be concise and keep every detail the next step needs.';

/** Leads the summary item, so the model that reads it next knows what it is. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far (earlier turns were compacted):\n';

/** A compact body's check: a Responses body without streaming; nothing is stored. */
export function validateCompactRequest(body: unknown): ResponsesFacts {
  if (isObject(body) && body.stream !== undefined && body.stream !== null && body.stream !== false)
    throw new GatewayError('invalid_request', {
      message: '`stream` is not supported on /v1/responses/compact: it answers one JSON object.',
      param: 'stream',
    });
  const facts = validateResponsesRequest(body);
  return { ...facts, stream: false, responses: { ...facts.responses, store: false } };
}

function inputItems(body: JsonObject): unknown[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return Array.isArray(body.input) ? body.input : [];
}

/**
 * The Responses turn that asks for the summary: the caller's history (and the response it continues),
 * the caller's instructions kept, the request at the end. Tools are left out: a summary calls none.
 */
export function summaryRequest(body: JsonObject): JsonObject {
  const out: JsonObject = {
    model: body.model,
    input: [...inputItems(body), { type: 'message', role: 'user', content: COMPACT_PROMPT }],
    store: false,
    stream: false,
  };
  if (typeof body.instructions === 'string') out.instructions = body.instructions;
  if (typeof body.previous_response_id === 'string') out.previous_response_id = body.previous_response_id;
  if (isObject(body.reasoning)) out.reasoning = body.reasoning;
  return out;
}

function isUserMessage(item: unknown): item is JsonObject {
  return isObject(item) && (item.type === undefined || item.type === 'message') && item.role === 'user';
}

function outputText(response: JsonObject): string {
  let text = '';
  for (const item of Array.isArray(response.output) ? response.output : []) {
    if (!isObject(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (isObject(part) && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** The gateway's compaction token: `mgw1.summary.` and the summary, base64url. */
const SUMMARY_TOKEN = 'mgw1.summary.';

/** The summary a compaction item of the gateway's carries, or null when `encrypted` is not its token. */
export function summaryOfCompaction(encrypted: unknown): string | null {
  if (typeof encrypted !== 'string' || !encrypted.startsWith(SUMMARY_TOKEN)) return null;
  return SUMMARY_PREFIX + Buffer.from(encrypted.slice(SUMMARY_TOKEN.length), 'base64url').toString('utf8');
}

/** The `response.compaction` object built from the summarising turn's response. */
export function compactionBody(request: JsonObject, responseText: string): string {
  const response = JSON.parse(responseText) as JsonObject;
  const kept = inputItems(request)
    .filter(isUserMessage)
    .map((m) => ({
      id: responsesId('msg'),
      type: 'message',
      status: 'completed',
      role: 'user',
      content: typeof m.content === 'string' ? [{ type: 'input_text', text: m.content }] : m.content,
    }));
  const compaction = {
    id: responsesId('cmp'),
    type: 'compaction',
    encrypted_content: SUMMARY_TOKEN + Buffer.from(outputText(response)).toString('base64url'),
  };
  return JSON.stringify({
    id: response.id,
    object: 'response.compaction',
    created_at: response.created_at,
    output: [...kept, compaction],
    usage: response.usage,
  });
}
