// Measures time to first byte and to end of response at 1 connection, in its own process so the
// timing client never shares a core's event loop with the harness. Argument: {request, count, warmup}
// JSON (maxMs optional); prints one JSON line with p50/p99 in µs.
import type { LoadRequest } from './lib/load.ts';
import { runSequential } from './lib/sequential-client.ts';
import { percentile } from './lib/stats.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  request: LoadRequest;
  count: number;
  warmup: number;
  maxMs?: number;
};
const timings = await runSequential(options);
process.stdout.write(
  `${JSON.stringify({
    ttfb: true,
    count: timings.ttfbUs.length,
    errors: timings.errors,
    ttfbP50Us: percentile(timings.ttfbUs, 50),
    ttfbP99Us: percentile(timings.ttfbUs, 99),
    totalP50Us: percentile(timings.totalUs, 50),
    totalP99Us: percentile(timings.totalUs, 99),
  })}\n`,
);
