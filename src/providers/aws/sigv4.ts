// AWS Signature Version 4 for the kinds that call AWS (bedrock, anthropic-aws; src/providers/aws/ holds
// what they share and is no kind itself): each request's method, path,
// query, headers and body hash signed with the deployment's credentials for its region and service. The
// credentials come from the provider's config, or AWS's standard chain (environment, shared profile, web
// identity, container and instance metadata); chain credentials are reused until five minutes before they
// expire and then fetched again, one fetch at a time. Credentials never leave this module except inside
// the `authorization` header's signature (the secret itself is never sent).
import type { SignatureV4 } from '@smithy/signature-v4';
import { z } from 'zod';

// The signer and the credential chain load with the first request signed, not with every gateway.
const signerLibraries = () => Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When temporary credentials stop working; absent for long-lived keys. */
  readonly expiration?: Date;
}

/** Yields the credentials to sign with; may refresh them. */
export type CredentialSource = () => Promise<AwsCredentials>;

/** How early before their expiry chain credentials are fetched again. */
export const REFRESH_BEFORE_MS = 5 * 60 * 1000;

/** The config keys operators write: long-lived (or session) keys, or none for the standard chain. */
export interface AwsKeyConfig {
  readonly aws_access_key_id?: string;
  readonly aws_secret_access_key?: string;
  readonly aws_session_token?: string;
}

/** Credentials from config when both keys are set, else the standard AWS chain, cached. */
export function credentialSource(cfg: AwsKeyConfig, now: () => number = Date.now): CredentialSource {
  if (cfg.aws_access_key_id !== undefined && cfg.aws_secret_access_key !== undefined) {
    const fixed: AwsCredentials = {
      accessKeyId: cfg.aws_access_key_id,
      secretAccessKey: cfg.aws_secret_access_key,
      sessionToken: cfg.aws_session_token,
    };
    const resolved = Promise.resolve(fixed);
    return () => resolved;
  }
  return cachedCredentials(chainCredentials(), now);
}

/** The standard AWS chain (environment, profile, web identity, container, instance), made on first use. */
function chainCredentials(): () => Promise<AwsCredentials> {
  let chain: (() => Promise<AwsCredentials>) | undefined;
  return async () => {
    if (chain === undefined) {
      const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
      chain = fromNodeProviderChain();
    }
    return chain();
  };
}

/**
 * Wraps a credential provider: one fetch in flight at a time, its answer reused until REFRESH_BEFORE_MS
 * before it expires. A failed fetch is not cached (the next request tries again).
 */
export function cachedCredentials(
  fetchCredentials: () => Promise<AwsCredentials>,
  now: () => number = Date.now,
): CredentialSource {
  let current: AwsCredentials | undefined;
  let inflight: Promise<AwsCredentials> | undefined;
  return () => {
    if (
      current !== undefined &&
      (current.expiration === undefined || current.expiration.getTime() - REFRESH_BEFORE_MS > now())
    ) {
      return Promise.resolve(current);
    }
    if (inflight === undefined) {
      inflight = fetchCredentials().then(
        (c) => {
          current = c;
          inflight = undefined;
          return c;
        },
        (err: unknown) => {
          inflight = undefined;
          throw err;
        },
      );
    }
    return inflight;
  };
}

/** A request to sign: what goes on the wire, as the gateway sends it. */
export interface SignRequest {
  readonly method: string;
  /** The full URL (origin, path, query). */
  readonly url: string;
  /** The request's headers; lower-case names. `host` is added from the URL when missing. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/** The signer of one region and service (`bedrock`, or the Claude Platform's service name). */
export class AwsSigner {
  readonly #region: string;
  readonly #service: string;
  readonly #credentials: CredentialSource;
  #signer: Promise<SignatureV4> | undefined;

  constructor(region: string, service: string, credentials: CredentialSource) {
    this.#region = region;
    this.#service = service;
    this.#credentials = credentials;
  }

  #signerNow(): Promise<SignatureV4> {
    this.#signer ??= signerLibraries().then(
      ([{ SignatureV4 }, { Sha256 }]) =>
        new SignatureV4({
          region: this.#region,
          service: this.#service,
          credentials: this.#credentials,
          sha256: Sha256,
          uriEscapePath: true,
          applyChecksum: true,
        }),
    );
    return this.#signer;
  }

  /**
   * The headers to send: the request's own plus `host`, `x-amz-date`, `x-amz-content-sha256`,
   * `x-amz-security-token` (with session credentials) and `authorization`.
   */
  async sign(req: SignRequest, signingDate?: Date): Promise<Record<string, string>> {
    const url = new URL(req.url);
    const headers: Record<string, string> = { ...req.headers };
    if (headers.host === undefined) headers.host = url.host;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signer = await this.#signerNow();
    const signed = await signer.sign(
      {
        method: req.method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: url.pathname,
        query,
        headers,
        body: req.body,
      },
      signingDate === undefined ? undefined : { signingDate },
    );
    return signed.headers as Record<string, string>;
  }
}

/** A Bedrock API key goes as a Bearer token instead of a signature. */
export function bearerHeaders(headers: Readonly<Record<string, string>>, apiKey: string): Record<string, string> {
  return { ...headers, authorization: `Bearer ${apiKey}` };
}

const secret = z.string().min(1);

/** The config keys of a kind that signs with AWS credentials (bedrock, anthropic-aws). */
export const AWS_CONFIG_KEYS = {
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as us-east-1'),
  aws_access_key_id: secret.optional(),
  aws_secret_access_key: secret.optional(),
  aws_session_token: secret.optional(),
};

/**
 * The signer a provider's AWS keys (or the standard chain) give, or null when it sends an API key
 * instead (`apiKey` says which kind of key, in the refusal of both).
 */
export function awsSignerOf(
  raw: Readonly<Record<string, unknown>>,
  fail: (key: string, message: string) => never,
  service: string,
  apiKey: string,
): AwsSigner | null {
  const keyId = raw.aws_access_key_id as string | undefined;
  const secretKey = raw.aws_secret_access_key as string | undefined;
  const sessionToken = raw.aws_session_token as string | undefined;
  if ((keyId === undefined) !== (secretKey === undefined))
    fail(
      keyId === undefined ? 'aws_access_key_id' : 'aws_secret_access_key',
      'give aws_access_key_id and aws_secret_access_key together, or neither (the standard AWS chain)',
    );
  if (sessionToken !== undefined && keyId === undefined)
    fail('aws_session_token', 'goes with aws_access_key_id and aws_secret_access_key');
  const keyed = raw.api_key !== undefined || raw.api_keys !== undefined;
  if (keyed && keyId !== undefined) fail('api_key', `give api_key (${apiKey}) or AWS access keys, not both`);
  if (keyed) return null;
  return new AwsSigner(
    raw.region as string,
    service,
    credentialSource({ aws_access_key_id: keyId, aws_secret_access_key: secretKey, aws_session_token: sessionToken }),
  );
}
