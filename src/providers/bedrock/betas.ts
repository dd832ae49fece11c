// The `anthropic-beta` values Claude on Bedrock takes (sent as the body's `anthropic_beta` list): the
// clouds' shared table (../claude-cloud-betas.ts); Bedrock refuses web search, which Vertex takes.
import { claudeCloudBetas } from '../claude-cloud-betas.ts';

export const BEDROCK_CLAUDE_BETAS = claudeCloudBetas();
