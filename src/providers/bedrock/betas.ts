// The `anthropic-beta` values Claude on Bedrock takes (sent as the body's `anthropic_beta` list). Bedrock
// serves a subset of Anthropic's betas: the ones below are documented for it or sent to it by Anthropic's
// own clients; anything else (the Files API, MCP connector, code execution, skills, web search) Bedrock
// refuses with a ValidationException, so it is left out and said. Tool search has its cloud name there.
import type { BetaRules } from '../../spec/provider.ts';

export const BEDROCK_CLAUDE_BETAS: BetaRules = {
  accepted: new Set([
    'claude-code-20250219',
    'interleaved-thinking-2025-05-14',
    'context-1m-2025-08-07',
    'context-management-2025-06-27',
    'structured-outputs-2025-11-13',
    'structured-outputs-2025-12-15',
    'effort-2025-11-24',
    'tool-search-tool-2025-10-19',
    'token-efficient-tools-2025-02-19',
    'fine-grained-tool-streaming-2025-05-14',
    'output-128k-2025-02-19',
    'computer-use-2024-10-22',
    'computer-use-2025-01-24',
    'computer-use-2025-11-24',
    'prompt-caching-2024-07-31',
    'extended-cache-ttl-2025-04-11',
  ]),
  renamed: { 'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19' },
};
