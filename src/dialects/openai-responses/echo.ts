// What a response object repeats of its request (instructions, tools, text, sampling, store, …). The
// hub form does not carry these as the caller wrote them, so the decoder keeps them beside the request
// it returns, and the reply and stream encoders read them back with it.
import type { JsonObject } from '../../core/json.ts';
import type { HubRequest, HubUsage } from '../../spec/form.ts';
import { echoedFields, usageObject } from './response-object.ts';

const echoes = new WeakMap<HubRequest, JsonObject>();

export function keepEcho(req: HubRequest, body: JsonObject): void {
  echoes.set(req, echoedFields(body));
}

/** The echoed fields of a decoded request; defaults when it was not decoded from a Responses body. */
export function echoOf(req: HubRequest): JsonObject {
  return echoes.get(req) ?? echoedFields({});
}

/** Whether the caller's tool of this name is a `custom` (free-form input) tool. */
export function isCustomTool(req: HubRequest, name: string): boolean {
  for (const t of req.tools) if (t.name === name) return t.kind === 'custom';
  return false;
}

/** Hub usage (input without cached tokens) as the Responses `usage` object (input with them). */
export function responsesUsage(u: HubUsage): JsonObject {
  return usageObject({
    inputTokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    cachedTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    outputTokens: u.outputTokens,
    reasoningTokens: u.reasoningTokens ?? 0,
  });
}
