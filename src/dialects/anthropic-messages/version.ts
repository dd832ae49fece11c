// The `anthropic-version` values /v1/messages and count_tokens accept, the request rules that differ
// between them (DESIGN.md "Headers and paths"), and the caller's Anthropic headers that go upstream with
// its body. 2023-06-01 is the seed's; 2026-10-21 is sent by SDK 1.x.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../core/errors.ts';
import { isObject } from '../../core/json.ts';

export const ANTHROPIC_VERSIONS = ['2023-06-01', '2026-10-21'] as const;
export type AnthropicVersion = (typeof ANTHROPIC_VERSIONS)[number];

/** The version translated requests to an Anthropic-style upstream carry unless the provider names one. */
export const DEFAULT_UPSTREAM_VERSION: AnthropicVersion = '2023-06-01';

const NAMED = ANTHROPIC_VERSIONS.join(' or ');

export function checkAnthropicVersion(headers: IncomingHttpHeaders): AnthropicVersion {
  const v = headers['anthropic-version'];
  if (v === undefined || v === '') throw new GatewayError('missing_version_header');
  if (!isAnthropicVersion(v)) {
    throw new GatewayError('unsupported_version', {
      message: `Unsupported anthropic-version "${String(v)}"; the supported values are ${NAMED}.`,
    });
  }
  return v;
}

/** anthropic-version and anthropic-beta, which go upstream where the body passes through unchanged. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const v = headers['anthropic-version'];
  const b = headers['anthropic-beta'];
  if (typeof v === 'string') out['anthropic-version'] = v;
  if (typeof b === 'string') out['anthropic-beta'] = b;
  return out;
}

function isAnthropicVersion(v: unknown): v is AnthropicVersion {
  return (ANTHROPIC_VERSIONS as readonly unknown[]).includes(v);
}

/** Sampling parameters the 2026-10-21 version removed: refused whatever their value. */
const REMOVED_SAMPLING = ['temperature', 'top_p', 'top_k'] as const;

/**
 * The request rules of 2026-10-21 that 2023-06-01 does not have: no sampling parameters, no `document`
 * block directly in an assistant message, no citations on a user's text block.
 */
export function checkVersionRules(body: Record<string, unknown>, version: AnthropicVersion): void {
  if (version !== '2026-10-21') return;
  for (const field of REMOVED_SAMPLING) {
    if (body[field] !== undefined) {
      throw new GatewayError('invalid_request', {
        message: `${field}: is not accepted under anthropic-version 2026-10-21; remove it (or send anthropic-version 2023-06-01).`,
        param: field,
      });
    }
  }
  const messages = body.messages;
  if (!Array.isArray(messages)) return;
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isObject(m) || !Array.isArray(m.content)) continue;
    for (let j = 0; j < m.content.length; j++) {
      const b: unknown = m.content[j];
      if (!isObject(b)) continue;
      const param = `messages.${i}.content.${j}`;
      if (m.role === 'assistant' && b.type === 'document') {
        throw new GatewayError('invalid_request', {
          message: `${param}: a document block is not accepted in an assistant message under anthropic-version 2026-10-21.`,
          param,
        });
      }
      if (m.role === 'user' && b.type === 'text' && Array.isArray(b.citations) && b.citations.length > 0) {
        throw new GatewayError('invalid_request', {
          message: `${param}.citations: citations on a user text block are not accepted under anthropic-version 2026-10-21.`,
          param: `${param}.citations`,
        });
      }
    }
  }
}
