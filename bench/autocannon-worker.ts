// Runs one autocannon load in its own process (so the load generator never shares the harness's event
// loop) and prints a LoadResult JSON line. Argument: a LoadOptions JSON object.
import { createRequire } from 'node:module';
import type { LoadOptions, LoadResult } from './lib/load.ts';

interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const result = await autocannon({
  url: options.request.url,
  method: options.request.method,
  headers: options.request.headers,
  body: options.request.method === 'POST' ? options.request.body : undefined,
  connections: options.connections,
  duration: options.durationS,
  timeout: 10,
});
const out: LoadResult = {
  requests: result.requests.total,
  rps: result.requests.total / result.duration,
  // autocannon records whole milliseconds.
  p50Us: result.latency.p50 * 1000,
  p99Us: result.latency.p99 * 1000,
  errors: result.errors + result.timeouts + result.non2xx,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
