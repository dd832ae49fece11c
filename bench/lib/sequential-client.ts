// One keep-alive connection, one request at a time, timed with hrtime to the first body byte and to the
// end: the 1-connection view (time to first streamed byte, cheap-request latency during a hold).
import http from 'node:http';
import type { LoadRequest } from './load.ts';

export interface SequentialTimings {
  /** µs from sending the request to the first body byte, per request. */
  ttfbUs: number[];
  /** µs from sending the request to the end of the body, per request. */
  totalUs: number[];
  errors: number;
}

interface OneTiming {
  ttfbUs: number;
  totalUs: number;
  ok: boolean;
}

function once(request: LoadRequest, agent: http.Agent): Promise<OneTiming> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    let first = 0n;
    const req = http.request(request.url, { method: request.method, headers: request.headers, agent }, (res) => {
      res.on('data', () => {
        if (first === 0n) first = process.hrtime.bigint();
      });
      res.on('end', () => {
        const end = process.hrtime.bigint();
        if (first === 0n) first = end;
        resolve({
          ttfbUs: Number(first - start) / 1000,
          totalUs: Number(end - start) / 1000,
          ok: res.statusCode === 200,
        });
      });
      res.on('error', () => resolve({ ttfbUs: 0, totalUs: 0, ok: false }));
    });
    req.on('error', () => resolve({ ttfbUs: 0, totalUs: 0, ok: false }));
    if (request.method === 'POST') req.end(request.body);
    else req.end();
  });
}

/** Runs `count` requests back to back after `warmup` untimed ones, stopping early after `maxMs` if given. */
export async function runSequential(options: {
  request: LoadRequest;
  count: number;
  warmup: number;
  maxMs?: number;
}): Promise<SequentialTimings> {
  let deadline = Infinity;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out: SequentialTimings = { ttfbUs: [], totalUs: [], errors: 0 };
  try {
    for (let i = 0; i < options.warmup + options.count && Date.now() < deadline; i += 1) {
      // The time bound covers timed requests only, so a slow target still gets measured.
      if (i === options.warmup && options.maxMs !== undefined) deadline = Date.now() + options.maxMs;
      const timing = await once(options.request, agent);
      if (!timing.ok) out.errors += 1;
      else if (i >= options.warmup) {
        out.ttfbUs.push(timing.ttfbUs);
        out.totalUs.push(timing.totalUs);
      }
    }
  } finally {
    agent.destroy();
  }
  return out;
}
