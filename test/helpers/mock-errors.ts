// Error bodies in each upstream dialect, with the type names real providers use for each status
// (STREAMING.md §3), so a gateway under test sees what it would see from the real service.

import type { MockDialect } from './mock-upstream-types.ts';

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const OPENAI_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'request_forbidden', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'service_unavailable_error', code: 'server_is_overloaded' },
};

const MESSAGES: Record<number, string> = {
  400: 'Invalid request (mock upstream).',
  401: 'Incorrect API key provided (mock upstream).',
  403: 'Permission denied (mock upstream).',
  404: 'The requested resource could not be found (mock upstream).',
  429: 'Rate limit reached (mock upstream).',
  500: 'The server had an error while processing your request (mock upstream).',
  502: 'Bad gateway (mock upstream).',
  503: 'The server is overloaded (mock upstream).',
  529: 'Overloaded (mock upstream).',
};

/** A dialect-shaped error body for `status`; unknown statuses fall back to the nearest generic type. */
export function mockErrorBody(options: {
  dialect: MockDialect;
  status: number;
  message?: string;
  requestId: string;
}): Record<string, unknown> {
  const { dialect, status, requestId } = options;
  const message = options.message ?? MESSAGES[status] ?? `Mock upstream error ${status}.`;
  if (dialect === 'gemini') {
    const statuses: Record<number, string> = {
      400: 'INVALID_ARGUMENT',
      401: 'UNAUTHENTICATED',
      403: 'PERMISSION_DENIED',
      404: 'NOT_FOUND',
      429: 'RESOURCE_EXHAUSTED',
      500: 'INTERNAL',
      503: 'UNAVAILABLE',
      504: 'DEADLINE_EXCEEDED',
    };
    return {
      error: { code: status, message, status: statuses[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') },
    };
  }
  if (dialect === 'anthropic') {
    const type = ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message }, request_id: requestId };
  }
  const known = OPENAI_TYPES[status] ?? (status >= 500 ? OPENAI_TYPES[500] : OPENAI_TYPES[400]);
  return { error: { message, type: known.type, param: null, code: known.code } };
}
