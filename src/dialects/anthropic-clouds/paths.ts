// The paths Anthropic's cloud clients call, served as gateway ingress: Bedrock's InvokeModel
// (`/model/{model}/invoke`, `/model/{model}/invoke-with-response-stream`), Bedrock's Converse
// (`/model/{model}/converse`, `/model/{model}/converse-stream`, what the AWS SDK's Converse commands call) and Vertex AI's rawPredict
// (`/v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict`, `:streamRawPredict`, and
// `count-tokens:rawPredict`). Vertex's SDK appends `/projects/…` to its base URL, which its users set with
// or without `/v1`, so both forms are served. Model ids come percent-decoded (the SDKs encode `:` of
// `…-v1:0`; Claude Code sends it as it is).

export interface BedrockCall {
  /** The model id of the path, decoded. */
  model: string;
  stream: boolean;
  /** InvokeModel (Anthropic's body) or Converse. */
  api: 'invoke' | 'converse';
}

export type VertexMethod = 'rawPredict' | 'streamRawPredict' | 'count-tokens';

export interface VertexCall {
  project: string;
  location: string;
  /** The model id of the path, decoded; '' for count-tokens (its body names the model). */
  model: string;
  method: VertexMethod;
}

const BEDROCK_PREFIX = '/model/';
/** Each Bedrock operation's path suffix, longest first where one ends another. */
const BEDROCK_OPERATIONS: readonly { suffix: string; stream: boolean; api: BedrockCall['api'] }[] = [
  { suffix: '/invoke-with-response-stream', stream: true, api: 'invoke' },
  { suffix: '/invoke', stream: false, api: 'invoke' },
  { suffix: '/converse-stream', stream: true, api: 'converse' },
  { suffix: '/converse', stream: false, api: 'converse' },
];

/** A Bedrock InvokeModel or Converse path, or null. */
export function bedrockCallOf(path: string): BedrockCall | null {
  if (!path.startsWith(BEDROCK_PREFIX)) return null;
  const op = BEDROCK_OPERATIONS.find((o) => path.endsWith(o.suffix));
  if (op === undefined) return null;
  const segment = path.slice(BEDROCK_PREFIX.length, path.length - op.suffix.length);
  if (segment === '' || segment.includes('/')) return null;
  const model = decoded(segment);
  return model === null ? null : { model, stream: op.stream, api: op.api };
}

const VERTEX = /^(?:\/v1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/]+)$/;

/** A Vertex AI Claude path, or null. */
export function vertexCallOf(path: string): VertexCall | null {
  const m = VERTEX.exec(path);
  if (m === null) return null;
  const colon = m[3].lastIndexOf(':');
  if (colon <= 0) return null;
  const method = m[3].slice(colon + 1);
  const model = decoded(m[3].slice(0, colon));
  const project = decoded(m[1]);
  const location = decoded(m[2]);
  if (model === null || project === null || location === null) return null;
  if (method === 'rawPredict' && model === 'count-tokens')
    return { project, location, model: '', method: 'count-tokens' };
  if (method !== 'rawPredict' && method !== 'streamRawPredict') return null;
  return { project, location, model, method };
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
