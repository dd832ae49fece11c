// The `anthropic-beta` values Claude on Vertex AI takes: the clouds' shared table (../claude-cloud-betas.ts)
// and those only Vertex serves (web search, and the betas Claude Code sends to it).
import { claudeCloudBetas } from '../claude-cloud-betas.ts';

export const VERTEX_CLAUDE_BETAS = claudeCloudBetas([
  'web-search-2025-03-05',
  'thinking-token-count-2026-05-13',
  'thinking-binding-controls-2026-08-01',
  'thinking-display-updates-2026-08-18',
  'afk-mode-2026-01-31',
  'dangerous-tool-use-2026-09-03',
  'fallback-credit-2026-06-01',
]);
