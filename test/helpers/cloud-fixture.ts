// The setup the cloud end-to-end tests share: the mocks a test asks for (a SigV4-checking Bedrock, a
// Vertex AI behind a local Google token endpoint, the scripted upstream both can relay to), a gateway
// whose providers and models the test writes against their URLs, and one key; `close` stops them all.
import { MOCK_AWS_CREDENTIALS, startMockBedrock, type MockBedrock, type MockBedrockOptions } from './mock-bedrock.ts';
import { startMockGoogleToken, type MockGoogleToken } from './mock-google-token.ts';
import { startMockUpstream } from './mock-upstream.ts';
import type { MockUpstream } from './mock-upstream-types.ts';
import { startMockVertex, type MockVertex } from './mock-vertex.ts';
import { startGateway, configYaml, type GatewayProcess } from './gateway-process.ts';

/** A kind bedrock provider's keys, signing with the credentials the mock checks. */
export const BEDROCK_KEYS = `aws_access_key_id: ${MOCK_AWS_CREDENTIALS.accessKeyId}, aws_secret_access_key: "${MOCK_AWS_CREDENTIALS.secretAccessKey}"`;

export interface CloudMocks {
  up: MockUpstream;
  br: MockBedrock;
  google: MockGoogleToken;
  vx: MockVertex;
  /** The service-account file the token endpoint issues for (Vertex's `credentials_file`). */
  serviceAccount: string;
}

export interface CloudFixture extends Partial<CloudMocks> {
  gw: GatewayProcess;
  key: string;
  keyId: string;
  close(): Promise<void>;
}

export async function startCloudFixture(opts: {
  /** Start the mock Bedrock Runtime (with these options). */
  bedrock?: MockBedrockOptions;
  /** Start the mock Vertex AI and its token endpoint, relaying to the scripted upstream. */
  vertex?: boolean;
  /** Start the scripted upstream (implied by `vertex`). */
  upstream?: boolean;
  providers: (mocks: Partial<CloudMocks>) => string;
  models: string;
  extra?: string;
  env?: Record<string, string>;
  keyName: string;
}): Promise<CloudFixture> {
  const mocks: Partial<CloudMocks> = {};
  const closers: (() => Promise<void>)[] = [];
  try {
    if (opts.upstream === true || opts.vertex === true) {
      const up = (mocks.up = await startMockUpstream());
      closers.push(() => up.close());
    }
    if (opts.bedrock !== undefined) {
      const br = (mocks.br = await startMockBedrock(opts.bedrock));
      closers.push(() => br.close());
    }
    if (opts.vertex === true) {
      const google = (mocks.google = await startMockGoogleToken());
      closers.push(() => google.close());
      const vx = (mocks.vx = await startMockVertex(google, { relayTo: mocks.up! }));
      closers.push(() => vx.close());
      mocks.serviceAccount = await google.serviceAccountFile();
    }
    const gw = await startGateway({
      configYaml: configYaml({ providers: opts.providers(mocks), models: opts.models, extra: opts.extra }),
      env: opts.env,
    });
    closers.push(() => gw.cleanup());
    const { key, id: keyId } = await gw.createKey({ name: opts.keyName });
    return {
      ...mocks,
      gw,
      key,
      keyId,
      close: async () => {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw err;
  }
}
