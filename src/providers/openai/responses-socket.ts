// Whether an OpenAI-wire upstream serves the Responses API over WebSocket (`responses_websocket`), and
// where: OpenAI's own API does (`wss://api.openai.com/v1/responses`); an OpenAI-compatible server is not
// assumed to, unless its operator says so.
import { z } from 'zod';
import type { ProviderConfig } from '../../core/config-types.ts';
import type { ProviderFinding, ResponsesSocketTarget } from '../../spec/provider.ts';

/** `auto`: try the upgrade and remember a refusal; `true`: served; `false`: never tried. */
export type ResponsesSocketMode = 'auto' | boolean;

export const responsesSocketKey = z
  .literal(['auto', true, false], { error: 'responses_websocket is auto, true or false' })
  .optional();

/** Hosts known to serve Responses over WebSocket: their default is `auto`, every other host's `false`. */
const SERVING_HOSTS: ReadonlySet<string> = new Set(['api.openai.com']);

/** The setting as written, or its default for the provider's base URL. */
export function responsesSocketMode(raw: Readonly<Record<string, unknown>>): ResponsesSocketMode {
  const set = raw.responses_websocket as ResponsesSocketMode | undefined;
  if (set !== undefined) return set;
  try {
    return SERVING_HOSTS.has(new URL(String(raw.base_url)).hostname) ? 'auto' : false;
  } catch {
    return false;
  }
}

/** The socket of a provider that serves `/responses` natively and allows the upgrade; else null. */
export function responsesSocketTarget(
  p: ProviderConfig,
  o: { mode: ResponsesSocketMode; servesResponses: boolean },
): ResponsesSocketTarget | null {
  if (o.mode === false || !o.servesResponses) return null;
  const url = new URL(`${p.baseUrl}/responses`);
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  return { url: url.href, mode: o.mode === true ? 'known' : 'probe' };
}

/** `responses_websocket: true` on an upstream whose `apis` leaves out `responses` does nothing: said. */
export function responsesSocketFindings(o: { mode: ResponsesSocketMode; servesResponses: boolean }): ProviderFinding[] {
  if (o.mode !== true || o.servesResponses) return [];
  return [
    {
      level: 'warning',
      key: 'responses_websocket',
      message:
        "responses_websocket is true but `apis` leaves out 'responses': Responses over WebSocket is bridged to HTTP for this provider",
    },
  ];
}
