// The processes the harness measures side by side: the mock upstream (direct), the bare reference proxy,
// nginx, the Portkey peer and, for the translated route, claude-code-router. Each start function returns a
// Target or a reason it was skipped.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasCommand } from './load.ts';
import type { LoadRequest } from './load.ts';
import { nginxConfig } from './nginx-config.ts';
import { Child, NODE, freePort, nodeLaunch, waitForHttp } from './processes.ts';
import { buildRequest } from './requests.ts';
import type { RequestKind, RequestSetup } from './requests.ts';

export type TargetName = 'direct' | 'modelgate' | 'bare-proxy' | 'nginx' | 'portkey' | 'ccr';

export interface Target {
  name: TargetName;
  baseUrl: string;
  /** The proxy process whose tree's CPU and memory are measured; for direct, the mock itself. */
  child: Child;
  /** Request kinds this target can serve. */
  kinds: ReadonlySet<RequestKind>;
  request(kind: RequestKind): LoadRequest;
  /** Facts about how it ran, for the results file. */
  notes: string[];
}

export type Started = { ok: true; target: Target } | { ok: false; reason: string };

const BENCH = new URL('..', import.meta.url).pathname;
const PLAIN = { chat: 'm', claude: 'm', hold: 'm' };
const ALL_KINDS: ReadonlySet<RequestKind> = new Set(['chat', 'chat-stream', 'chat-50kb', 'hold-stream']);

function makeTarget(options: {
  name: TargetName;
  child: Child;
  setup: RequestSetup;
  kinds?: ReadonlySet<RequestKind>;
  notes?: string[];
}): Target {
  return {
    name: options.name,
    baseUrl: options.setup.baseUrl,
    child: options.child,
    kinds: options.kinds ?? ALL_KINDS,
    request: (kind) => buildRequest(options.setup, kind),
    notes: options.notes ?? [],
  };
}

export interface MockSettings {
  chunks: number;
  chunkSize: number;
  pacing: string;
  latencyMs: number;
}

export async function startMock(settings: MockSettings): Promise<{ child: Child; port: number }> {
  const child = new Child({
    name: 'mock-upstream',
    command: NODE,
    args: [
      join(BENCH, 'mock-upstream.ts'),
      '--port=0',
      `--chunks=${settings.chunks}`,
      `--chunk-size=${settings.chunkSize}`,
      `--pacing=${settings.pacing}`,
      `--latency-ms=${settings.latencyMs}`,
    ],
  });
  return { child, port: await child.portLine(10_000) };
}

export function directTarget(mock: { child: Child; port: number }): Target {
  return makeTarget({
    name: 'direct',
    child: mock.child,
    setup: {
      baseUrl: `http://127.0.0.1:${mock.port}`,
      models: PLAIN,
      headers: { authorization: 'Bearer x' },
      holdPrefix: '/hold',
    },
    kinds: new Set([...ALL_KINDS, 'messages-stream']),
    notes: ['CPU shown for direct is the mock upstream’s own'],
  });
}

/**
 * `nodeFlags` are for the garbage-collection pass, which traces V8's collections; `wrapper` for the
 * instruction pass, which runs the proxy under valgrind (and so waits longer for it to start).
 */
export async function startBareProxy(
  mockPort: number,
  options: {
    nodeFlags?: readonly string[];
    wrapper?: readonly string[];
    readyTimeoutMs?: number;
    /** Another upstream origin than the plain mock's (the HTTPS one), its CA in `env`, HTTP/2 offered with `h2`. */
    upstream?: string;
    h2?: boolean;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<Started> {
  const launch = nodeLaunch(
    [
      ...(options.nodeFlags ?? []),
      join(BENCH, 'bare-proxy.ts'),
      '--port=0',
      `--upstream=${options.upstream ?? `http://127.0.0.1:${mockPort}`}`,
      ...(options.h2 === true ? ['--h2'] : []),
    ],
    options.wrapper,
  );
  const child = new Child({ name: 'bare-proxy', ...launch, env: options.env });
  const port = await child.portLine(options.readyTimeoutMs ?? 10_000);
  const setup = {
    baseUrl: `http://127.0.0.1:${port}`,
    models: PLAIN,
    headers: { authorization: 'Bearer x' },
    holdPrefix: '/hold',
  };
  return { ok: true, target: makeTarget({ name: 'bare-proxy', child, setup }) };
}

export async function startNginx(options: { mockPort: number; workDir: string }): Promise<Started> {
  if (!hasCommand('nginx', ['-v'])) return { ok: false, reason: 'nginx not installed (apt-get install -y nginx)' };
  const dir = join(options.workDir, 'nginx');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ dir, listenPort: port, upstreamPort: options.mockPort }));
  const child = new Child({
    name: 'nginx',
    command: 'nginx',
    args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp({ url: `${baseUrl}/healthz`, child, timeoutMs: 10_000, accept: (s) => s === 200 });
  return {
    ok: true,
    target: makeTarget({
      name: 'nginx',
      child,
      setup: { baseUrl, models: PLAIN, headers: { authorization: 'Bearer x' }, holdPrefix: '/hold' },
    }),
  };
}

const PEER_DIR = join(BENCH, 'peer');
const PORTKEY_BIN = join(PEER_DIR, 'node_modules/@portkey-ai/gateway/build/start-server.js');
const CCR_BIN = join(PEER_DIR, 'node_modules/@musistudio/claude-code-router/dist/cli.js');

/** Installs bench/peer on demand; returns why not when it cannot. */
async function ensurePeer(name: string, bin: string, install: boolean): Promise<string | undefined> {
  if (existsSync(bin)) return undefined;
  if (!install) return `${name} not installed (quick mode does not install; run \`npm install --prefix bench/peer\`)`;
  process.stderr.write(`installing the ${name} peer into bench/peer (npm install --prefix bench/peer)…\n`);
  const npm = new Child({
    name: 'npm',
    command: 'npm',
    args: ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund'],
  });
  const code = await npm.exit();
  if (code !== 0 || !existsSync(bin)) return `npm install --prefix bench/peer failed (${npm.stderrTail})`;
  return undefined;
}

export async function startPortkey(options: { mockPort: number; install: boolean }): Promise<Started> {
  const missing = await ensurePeer('Portkey', PORTKEY_BIN, options.install);
  if (missing !== undefined) return { ok: false, reason: missing };
  const port = await freePort();
  const child = new Child({
    name: 'portkey',
    command: NODE,
    args: [PORTKEY_BIN, `--port=${port}`, '--headless'],
    cwd: PEER_DIR,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp({ url: `${baseUrl}/`, child, timeoutMs: 20_000 });
  const headers = {
    authorization: 'Bearer x',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `http://127.0.0.1:${options.mockPort}/v1`,
  };
  return {
    ok: true,
    target: makeTarget({
      name: 'portkey',
      child,
      setup: { baseUrl, models: PLAIN, headers, holdPrefix: '' },
      kinds: new Set(['chat', 'chat-stream', 'chat-50kb']),
      notes: [
        '@portkey-ai/gateway 1.15.2 with @hono/node-server pinned to 1.13.8 by npm overrides (streaming fails unpinned: Portkey-AI/gateway#1389, #1550)',
      ],
    }),
  };
}

/**
 * claude-code-router (what Claude Code users run to reach other models): Anthropic messages in, chat
 * completions to the mock out. It reads ~/.claude-code-router/config.json, so it gets a HOME of its own.
 * 2.0.0, the newest that installs: 3.x depends on a package the registry does not have.
 */
export async function startClaudeCodeRouter(options: {
  mockPort: number;
  install: boolean;
  workDir: string;
  /** Another provider than chat completions on the mock (the agent bench passes Anthropic messages through). */
  provider?: { api_base_url: string; models: string[]; transformer?: object };
}): Promise<Started> {
  const missing = await ensurePeer('claude-code-router', CCR_BIN, options.install);
  if (missing !== undefined) return { ok: false, reason: missing };
  const port = await freePort();
  const home = join(options.workDir, 'ccr-home');
  mkdirSync(join(home, '.claude-code-router'), { recursive: true });
  const config = {
    HOST: '127.0.0.1',
    PORT: port,
    LOG: false,
    Providers: [
      {
        name: 'mock',
        api_base_url: `http://127.0.0.1:${options.mockPort}/v1/chat/completions`,
        api_key: 'x',
        models: ['m'],
        ...options.provider,
      },
    ],
    Router: { default: `mock,${options.provider?.models[0] ?? 'm'}` },
  };
  writeFileSync(join(home, '.claude-code-router', 'config.json'), JSON.stringify(config));
  const child = new Child({
    name: 'ccr',
    command: NODE,
    args: [CCR_BIN, 'start'],
    cwd: PEER_DIR,
    env: { ...process.env, HOME: home },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp({ url: `${baseUrl}/`, child, timeoutMs: 20_000 });
  return {
    ok: true,
    target: makeTarget({
      name: 'ccr',
      child,
      setup: { baseUrl, models: { ...PLAIN, claude: 'claude-bench' }, headers: {}, holdPrefix: '' },
      kinds: new Set(['messages-stream']),
      notes: [
        '@musistudio/claude-code-router 2.0.0 (`ccr start`, no API key, logging off), routing every model to the mock as `mock,m`',
      ],
    }),
  };
}
