// The request bodies and headers of each benchmark scenario, built once per target.
import type { LoadRequest } from './load.ts';

export type RequestKind = 'chat' | 'chat-stream' | 'chat-50kb' | 'messages-stream' | 'responses-stream' | 'hold-stream';

export interface ModelNames {
  chat: string;
  claude: string;
  hold: string;
}

export interface RequestSetup {
  baseUrl: string;
  models: ModelNames;
  /** Headers every request to this target carries (auth, provider routing). */
  headers: Record<string, string>;
  /** Path prefix that makes the mock park a stream; for gateways the hold is chosen by model instead. */
  holdPrefix: string;
}

const PROMPT = [{ role: 'user', content: 'Say hello in fifty short pieces.' }];
const BIG_PROMPT = [
  { role: 'user', content: 'lorem ipsum dolor sit amet '.repeat(Math.ceil(51_200 / 27)).slice(0, 51_200) },
];

function body(kind: RequestKind, models: ModelNames): string {
  switch (kind) {
    case 'chat':
      return JSON.stringify({ model: models.chat, messages: PROMPT, max_tokens: 64 });
    case 'chat-stream':
      return JSON.stringify({ model: models.chat, messages: PROMPT, max_tokens: 64, stream: true });
    case 'chat-50kb':
      return JSON.stringify({ model: models.chat, messages: BIG_PROMPT, max_tokens: 64 });
    case 'messages-stream':
      return JSON.stringify({ model: models.claude, messages: PROMPT, max_tokens: 64, stream: true });
    case 'responses-stream':
      // The Responses API to the OpenAI-style (chat-only) upstream: translated by the hub; stored nothing.
      return JSON.stringify({
        model: models.chat,
        input: PROMPT[0].content,
        max_output_tokens: 64,
        stream: true,
        store: false,
      });
    case 'hold-stream':
      return JSON.stringify({ model: models.hold, messages: PROMPT, max_tokens: 64, stream: true });
  }
}

export function buildRequest(setup: RequestSetup, kind: RequestKind): LoadRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...setup.headers };
  let path = '/v1/chat/completions';
  if (kind === 'messages-stream') {
    path = '/v1/messages';
    headers['anthropic-version'] = '2023-06-01';
  }
  if (kind === 'responses-stream') path = '/v1/responses';
  if (kind === 'hold-stream') path = `${setup.holdPrefix}${path}`;
  return { url: `${setup.baseUrl}${path}`, method: 'POST', headers, body: body(kind, setup.models) };
}
