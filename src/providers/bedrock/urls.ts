// Where Bedrock Runtime requests go: `https://bedrock-runtime.{region}.amazonaws.com` unless `base_url`
// overrides it (a VPC endpoint, a test double); the model or inference-profile id in the path, escaped
// (`us.anthropic.claude-…-v1:0` has a colon, an ARN has slashes), then the operation.

/** The Bedrock Runtime origin of a region. */
export function bedrockOrigin(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

export type BedrockOperation = 'invoke' | 'invoke-with-response-stream' | 'converse' | 'converse-stream';

export function bedrockPath(prefix: string, model: string, op: BedrockOperation): string {
  return `${prefix}/model/${encodeURIComponent(model)}/${op}`;
}

/**
 * Claude models (`anthropic.claude-…`, and inference profiles over them: `us.anthropic.claude-…`, an ARN
 * naming one) take Anthropic's own body through InvokeModel; every other model speaks Converse.
 */
export function isBedrockClaude(model: string): boolean {
  return model.includes('anthropic.claude');
}
