// Latency at 1 connection, one request at a time, over one raw socket: each request is one write and
// each response is framed by content-length or chunks (lib/raw-http.ts), so the client adds little and
// steady time of its own. Argument: {request, count, warmup} JSON; prints one JSON line with µs figures.
import type { LoadRequest } from './lib/load.ts';
import { RawConnection, requestBytes } from './lib/raw-http.ts';
import { percentile } from './lib/stats.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { request: LoadRequest; count: number; warmup: number };
const url = new URL(options.request.url);

const connection = new RawConnection(url, requestBytes(options.request));

const latencies: number[] = [];
let errors = 0;
for (let i = 0; i < options.warmup + options.count; i += 1) {
  const start = performance.now();
  const answer = await connection.send();
  const us = (performance.now() - start) * 1000;
  // A failed connection is opened again by the next send.
  if (answer instanceof Error || answer.status !== 200) errors += 1;
  else if (i >= options.warmup) latencies.push(us);
}
connection.close();
process.stdout.write(
  `${JSON.stringify({ latency: true, count: latencies.length, errors, p50Us: percentile(latencies, 50), p99Us: percentile(latencies, 99), p999Us: percentile(latencies, 99.9) })}\n`,
);
