// Starts modelgate itself with every feature on (auth, admission with a budget, usage rows, metrics)
// in front of the mock upstream, with a bench key made by its own CLI.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Child, NODE, freePort, nodeLaunch, waitForHttp } from './processes.ts';
import type { Started, Target } from './targets.ts';
import { buildRequest } from './requests.ts';
import type { RequestKind } from './requests.ts';
import { SHIPPED_NODE_FLAGS, withShippedEnvironment } from '../../src/runtime/node-flags.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const MAIN = join(ROOT, 'src/main.ts');
const PRICE = { input: 1, output: 2 };

export function modelgateConfig(options: {
  mockPort: number;
  port: number;
  dir: string;
  shedding?: boolean;
  /** Another upstream origin than the plain mock's (the HTTPS one offering HTTP/2). */
  mockOrigin?: string;
  /** More top-level settings, over the ones above (the overload pass sets overload_loop_delay_ms). */
  settings?: Record<string, unknown>;
}): string {
  const mock = options.mockOrigin ?? `http://127.0.0.1:${options.mockPort}`;
  return stringify({
    listen: { host: '127.0.0.1', port: options.port },
    // Under a wrapper that slows every instruction (valgrind) the event loop lags by design: shedding on
    // that lag would refuse the very requests the pass counts.
    ...(options.shedding === false ? { overload_loop_delay_ms: 0 } : {}),
    database: join(options.dir, 'modelgate.db'),
    providers: [
      { name: 'up', kind: 'openai', base_url: `${mock}/v1`, api_key: 'x' },
      { name: 'upa', kind: 'anthropic', base_url: mock, api_key: 'x' },
      // The mock parks streams under /hold until the harness releases them.
      { name: 'uphold', kind: 'openai', base_url: `${mock}/hold/v1`, api_key: 'x' },
    ],
    models: [
      { name: 'bench-model', price: PRICE, deployments: [{ provider: 'up', model: 'm' }] },
      // A claude-* name on an OpenAI-style upstream: /v1/messages is translated.
      { name: 'claude-bench', price: PRICE, deployments: [{ provider: 'up', model: 'm' }] },
      { name: 'bench-hold', price: PRICE, deployments: [{ provider: 'uphold', model: 'm' }] },
    ],
    ...options.settings,
  });
}

/**
 * Settings for a pass that holds `streams` streams from one client address, opened all at once: the
 * gateway's share per client address (a tenth of max_connections by default) would refuse all but the
 * first thousand, as it is meant to for one client, and the load shedder answers such a burst by refusing
 * a share of it. Such a pass measures what holding costs (bench:overload measures shedding).
 */
export function oneClientSettings(streams: number): Record<string, unknown> {
  return { max_connections_per_address: streams + 1_000, overload_loop_delay_ms: 0 };
}

interface CreatedKey {
  key: string;
  id: string;
}

let keyCount = 0;

async function createKey(configPath: string): Promise<{ key: string; admission: string } | { error: string }> {
  // Key names are unique in a database, and passes that restart the gateway in one directory reuse it.
  const base = [
    MAIN,
    'keys',
    'create',
    '--name',
    `bench-${Date.now().toString(36)}-${(keyCount++).toString(36)}`,
    '--json',
    '--config',
    configPath,
  ];
  const attempts: Array<{ args: string[]; admission: string }> = [
    {
      args: [...base, '--budget-usd', '1000000', '--rpm', '100000000'],
      admission: 'key with budget USD 1,000,000 and rpm 100,000,000',
    },
    { args: base, admission: 'key without budget/rpm (the CLI rejected --budget-usd/--rpm)' },
  ];
  let lastError = '';
  for (const attempt of attempts) {
    const child = new Child({ name: 'modelgate keys create', command: NODE, args: attempt.args, cwd: ROOT });
    const code = await child.exit();
    const line = child.stdout.split('\n').find((l) => l.trim().startsWith('{'));
    if (code === 0 && line !== undefined) {
      const created = JSON.parse(line) as CreatedKey;
      return { key: created.key, admission: attempt.admission };
    }
    lastError = child.stderrTail || `exit ${code}`;
  }
  return { error: `modelgate keys create failed: ${lastError}` };
}

/**
 * The gateway runs as it ships: with SHIPPED_NODE_FLAGS (what `npm start` and the `modelgate` command
 * pass), then `nodeFlags` (`npm run bench -- --node-flags=…`), whose V8 flags win over the shipped ones.
 * `wrapper`: a command that runs the gateway's Node (the instruction pass's valgrind), which starts slower.
 */
export async function startModelgate(options: {
  mockPort: number;
  workDir: string;
  nodeFlags?: readonly string[];
  wrapper?: readonly string[];
  readyTimeoutMs?: number;
  mockOrigin?: string;
  /** More environment (NODE_EXTRA_CA_CERTS for the HTTPS mock's certificate). */
  env?: NodeJS.ProcessEnv;
  settings?: Record<string, unknown>;
}): Promise<Started> {
  if (!existsSync(MAIN)) return { ok: false, reason: 'src/main.ts does not exist yet' };
  const port = await freePort();
  const configPath = join(options.workDir, 'modelgate.yaml');
  writeFileSync(
    configPath,
    modelgateConfig({
      mockPort: options.mockPort,
      port,
      dir: options.workDir,
      shedding: options.wrapper === undefined,
      mockOrigin: options.mockOrigin,
      settings: options.settings,
    }),
  );
  const created = await createKey(configPath);
  if ('error' in created) return { ok: false, reason: created.error };
  const flags = [...SHIPPED_NODE_FLAGS, ...(options.nodeFlags ?? [])];
  const launch = nodeLaunch(
    [...flags, MAIN, 'serve', '--config', configPath, '--port', String(port), '--host', '127.0.0.1'],
    options.wrapper,
  );
  // As the launchers run it: MALLOC_ARENA_MAX as shipped unless the caller's environment sets one.
  // No drain delay at the end of a run: nothing balances load across the bench's gateway.
  const env: NodeJS.ProcessEnv = {
    ...withShippedEnvironment(process.env),
    MODELGATE_DRAIN_DELAY_S: process.env.MODELGATE_DRAIN_DELAY_S ?? '0',
    ...options.env,
  };
  const child = new Child({ name: 'modelgate', ...launch, cwd: ROOT, env });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp({
      url: `${baseUrl}/healthz`,
      child,
      timeoutMs: options.readyTimeoutMs ?? 20_000,
      accept: (s) => s === 200,
    });
  } catch (error) {
    await child.stop();
    return { ok: false, reason: (error as Error).message };
  }
  const masked = `${created.key.slice(0, 4)}…${created.key.slice(-4)}`;
  const setup = {
    baseUrl,
    models: { chat: 'bench-model', claude: 'claude-bench', hold: 'bench-hold' },
    headers: { authorization: `Bearer ${created.key}` },
    holdPrefix: '',
  };
  const target: Target = {
    name: 'modelgate',
    baseUrl,
    child,
    kinds: new Set<RequestKind>([
      'chat',
      'chat-stream',
      'chat-50kb',
      'messages-stream',
      'responses-stream',
      'hold-stream',
    ]),
    request: (kind) => buildRequest(setup, kind),
    notes: [
      `bench key ${masked}: ${created.admission}`,
      `started with Node flags ${flags.join(' ')}${options.nodeFlags?.length ? '' : ' (as shipped: npm start, the modelgate command)'}, MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX}`,
      ...(options.settings === undefined ? [] : [`settings over the defaults: ${JSON.stringify(options.settings)}`]),
    ],
  };
  return { ok: true, target };
}
