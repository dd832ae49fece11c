// The `anthropic-beta` values the clouds that host Claude take (Bedrock as the body's `anthropic_beta`
// list, Vertex AI as the header): a subset of Anthropic's, documented for them or sent to them by
// Anthropic's own clients (Claude Code keeps the same list for its cloud routes). Anything else (the
// Files API, MCP connector, code execution, skills) the cloud refuses with a 400, so it is left out and
// said. Tool search has its cloud name there. One table, each cloud adding what only it takes.
import type { BetaRules } from '../spec/provider.ts';

const SHARED: readonly string[] = [
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
];

const RENAMED: Readonly<Record<string, string>> = { 'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19' };

/** The rules of one cloud: the shared betas and `more` that only it takes. */
export function claudeCloudBetas(more: readonly string[] = []): BetaRules {
  return { accepted: new Set([...SHARED, ...more]), renamed: RENAMED };
}
