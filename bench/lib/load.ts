// Load from a separate process: wrk with a generated Lua POST script when installed, else autocannon
// run in a child Node process (bench/autocannon-worker.ts). Either way the result has the same shape.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Child, NODE } from './processes.ts';
import type { SettleOptions } from './settle.ts';

export interface LoadRequest {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: string;
}

export interface LoadOptions {
  request: LoadRequest;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  /** Responses completed (any status). */
  requests: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  /** Socket errors, timeouts and non-2xx responses. */
  errors: number;
}

/** What a pass that starts its own gateways against the run's mock and loads them with its generator takes. */
export interface LoadPassOptions {
  mockPort: number;
  workDir: string;
  generator: LoadGenerator;
  reps: number;
  durationS: number;
  warmupMs: number;
  /**
   * After warmupMs, warm each process on until V8's compiler settles (lib/settle.ts): a fresh process
   * measured 2 s after start spends several times its settled CPU on optimising threads.
   */
  settle?: SettleOptions;
  log: (line: string) => void;
}

export interface LoadGenerator {
  name: 'wrk' | 'autocannon';
  /** Latency resolution the tool records, µs (autocannon keeps whole milliseconds). */
  resolutionUs: number;
  run(options: LoadOptions): Promise<LoadResult>;
}

export function hasCommand(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return result.error === undefined;
}

/** Renders the Lua script that makes wrk POST a body from a file and print a JSON summary line. */
export function wrkScript(request: LoadRequest, bodyPath: string): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join('\n');
  return `wrk.method = ${JSON.stringify(request.method)}
${request.method === 'POST' ? `local f = assert(io.open(${JSON.stringify(bodyPath)}, "rb"))\nwrk.body = f:read("*a")\nf:close()` : ''}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\n{"wrk":1,"requests":%d,"durationUs":%d,"socketErrors":%d,"statusErrors":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  socketErrors: number;
  statusErrors: number;
  p50Us: number;
  p99Us: number;
}

export function createWrk(workDir: string): LoadGenerator {
  let runs = 0;
  return {
    name: 'wrk',
    resolutionUs: 1,
    async run(options) {
      runs += 1;
      const bodyPath = join(workDir, `wrk-body-${runs}.json`);
      const scriptPath = join(workDir, `wrk-${runs}.lua`);
      writeFileSync(bodyPath, options.request.body);
      writeFileSync(scriptPath, wrkScript(options.request, bodyPath));
      const child = new Child({
        name: 'wrk',
        command: 'wrk',
        args: [
          '-t1',
          `-c${options.connections}`,
          `-d${options.durationS}s`,
          '--timeout',
          '10s',
          '-s',
          scriptPath,
          options.request.url,
        ],
      });
      await child.exit();
      const summary = await child.jsonLine<WrkSummary>('wrk', 1000);
      return {
        requests: summary.requests,
        rps: summary.requests / (summary.durationUs / 1e6),
        p50Us: summary.p50Us,
        p99Us: summary.p99Us,
        errors: summary.socketErrors + summary.statusErrors,
      };
    },
  };
}

export function createAutocannon(): LoadGenerator {
  const worker = new URL('../autocannon-worker.ts', import.meta.url).pathname;
  return {
    name: 'autocannon',
    resolutionUs: 1000,
    async run(options) {
      const child = new Child({ name: 'autocannon', command: NODE, args: [worker, JSON.stringify(options)] });
      await child.exit();
      return child.jsonLine<LoadResult>('rps', 1000);
    },
  };
}

/** wrk when installed (native, so it takes less of the shared CPU), else autocannon. */
export function pickLoadGenerator(workDir: string, prefer?: string): LoadGenerator {
  if (prefer !== 'autocannon' && hasCommand('wrk', ['--version'])) return createWrk(workDir);
  return createAutocannon();
}
