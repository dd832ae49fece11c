// The routing soak (issue 5): mixed load with 30 % injected faults across 3 deployments, streamed and not,
// both dialects. Every request must be answered; open upstream sockets and gateway heap stay bounded;
// the gateway logs no unhandled rejection. `npm run soak` (SOAK_SECONDS, default 120).
import assert from 'node:assert/strict';
import { startRoutingFixture, ROUTES } from '../routing/e2e-fixture.ts';
import type { Fault } from '../helpers/mock-upstream-types.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const CONCURRENCY = 16;
/** Stated bounds: upstream sockets across the 3 mocks, and heap growth after warm-up. */
const MAX_OPEN_SOCKETS = 3 * CONCURRENCY + 8;
const MAX_HEAP_GROWTH_BYTES = 64 * 1024 * 1024;

const FAULTS: Fault[] = [
  { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
  { kind: 'status', status: 503 },
  { kind: 'status', status: 529 },
  { kind: 'reset' },
  { kind: 'hang-before-headers' },
  { kind: 'hang-after-headers', afterEvents: 2 },
  { kind: 'cut-stream', afterEvents: 3 },
  { kind: 'malformed-sse', afterEvents: 2 },
  { kind: 'non-json-200' },
];

async function heap(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/modelgate_heap_used_bytes (\d+)/.exec(text)?.[1] ?? NaN);
}

const fx = await startRoutingFixture({ env: { MODELGATE_BREAKER_COOLDOWN_MS: '2000' } });
for (const up of fx.ups)
  up.setBehaviour(() => (Math.random() < 0.3 ? FAULTS[Math.floor(Math.random() * FAULTS.length)] : undefined));
const statuses = new Map<number, number>();
let sent = 0;
let answered = 0;
let maxSockets = 0;
try {
  const warmHeap = await heap(fx.gw.url);
  const end = Date.now() + SECONDS * 1000;
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; Date.now() < end; i++) {
      const route = ROUTES[(w + i) % ROUTES.length];
      sent++;
      const res = await fx.send(route, { stream: i % 2 === 0 });
      await res.text();
      answered++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      maxSockets = Math.max(
        maxSockets,
        fx.ups.reduce((n, u) => n + u.openSockets(), 0),
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const grown = (await heap(fx.gw.url)) - warmHeap;
  console.log(
    JSON.stringify({
      seconds: SECONDS,
      sent,
      answered,
      statuses: Object.fromEntries(statuses),
      maxSockets,
      heapGrowthBytes: grown,
    }),
  );
  assert.equal(answered, sent, 'every request answered');
  assert.ok(maxSockets <= MAX_OPEN_SOCKETS, `open upstream sockets ${maxSockets} > ${MAX_OPEN_SOCKETS}`);
  assert.ok(grown < MAX_HEAP_GROWTH_BYTES, `heap grew by ${grown} bytes`);
  assert.ok(!/unhandled|uncaught/i.test(fx.gw.logs()), 'no unhandled rejection in the gateway log');
  for (const s of statuses.keys()) assert.ok([200, 429, 502, 503, 504].includes(s), `unexpected status ${s}`);
  console.log('soak passed');
} finally {
  await fx.close();
}
