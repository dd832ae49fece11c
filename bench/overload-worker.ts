// Open-loop load at a fixed arrival rate (as wrk2 schedules it): request i is due at start + i / rate
// whether or not earlier ones were answered, and its latency runs from that due time, so a slow
// gateway cannot slow the arrivals down and hide its own queue (coordinated omission). Argument: one
// JSON object (OverloadWorkerOptions); then one phase (OverloadPhase) a line on stdin, each answered by
// one JSON line (OverloadWorkerResult) on stdout once every request of it is settled.
//
// The client is raw keep-alive sockets (lib/raw-http.ts), the request one prepared buffer: three times
// what a gateway's core serves is several thousand requests a second, which a general HTTP client on
// the other core cannot send on schedule (undici's Pool fell behind by 80 ms and more at 4,500/s).
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import type { LoadRequest } from './lib/load.ts';
import { RawConnection, type RawAnswer, requestBytes } from './lib/raw-http.ts';
import { percentile } from './lib/stats.ts';

export interface OverloadWorkerOptions {
  request: LoadRequest;
  /** Most connections the client opens; past them requests wait in the client, and that wait counts. */
  connections: number;
}

export interface OverloadPhase {
  /** Requests a second. */
  rate: number;
  durationS: number;
  /** Where the x-request-id of every 200 goes, one a line. */
  idsFile?: string;
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface OverloadWorkerResult {
  offered: number;
  /** Answers by status ("200", "503", …). */
  statuses: Record<string, number>;
  /** Socket errors and timeouts (no status). */
  errors: number;
  firstError: string | null;
  ok: LatencySummary;
  refused: LatencySummary;
  /** How late the client itself sent requests past their due time (its own CPU or connection wait). */
  sendLate: LatencySummary;
  /** 503 answers that carried retry-after. */
  refusedWithRetryAfter: number;
  /** Answers completed a second over the run (not the offered rate). */
  answeredPerS: number;
  /** By due time, in slices of `sliceMs`: how many were answered 200 and refused, and their slowest, ms. */
  timeline: Array<{ ok: number; refused: number; okMaxMs: number; refusedMaxMs: number }>;
  sliceMs: number;
}

const SLICE_MS = 250;

const options = JSON.parse(process.argv[2] ?? '{}') as OverloadWorkerOptions;
const url = new URL(options.request.url);
const bytes = requestBytes(options.request);

/**
 * Up to `connections` connections; past them requests wait here for one, and that wait counts. Idle ones
 * are reused in turn, oldest first: reusing the newest kept the same few busy in the slower phases, while
 * the gateway closed the rest at its keep-alive timeout, and at the overload's start all of them were
 * opened again at once.
 */
const idle: RawConnection[] = [];
const waiting: Array<(c: RawConnection) => void> = [];
let opened = 0;
function release(c: RawConnection): void {
  const next = waiting.shift();
  if (next !== undefined) next(c);
  else idle.push(c);
}
async function send(): Promise<RawAnswer | Error> {
  let c = idle.shift();
  if (c === undefined && opened < options.connections) {
    opened++;
    c = new RawConnection(url, bytes);
  }
  c ??= await new Promise<RawConnection>((resolve) => waiting.push(resolve));
  const answer = await c.send();
  release(c);
  return answer;
}

const REQUEST_ID = /\r\nx-request-id:\s*([^\r]*)/i;
const RETRY_AFTER = /\r\nretry-after:/i;

/** One phase at a fixed arrival rate; resolves once every request of it is answered or failed. */
async function runPhase(phase: OverloadPhase): Promise<OverloadWorkerResult> {
  const { request } = options;
  const { rate } = phase;
  const total = Math.round(rate * phase.durationS);
  const okMs: number[] = [];
  const refusedMs: number[] = [];
  const lateMs: number[] = [];
  const statuses: Record<string, number> = {};
  const ids: string[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let refusedWithRetryAfter = 0;
  let settled = 0;
  let sent = 0;
  const start = performance.now() + 5;
  const timeline = Array.from({ length: Math.ceil((phase.durationS * 1000) / SLICE_MS) + 1 }, () => ({
    ok: 0,
    refused: 0,
    okMaxMs: 0,
    refusedMaxMs: 0,
  }));
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });

  async function fire(dueAt: number): Promise<void> {
    lateMs.push(performance.now() - dueAt);
    const answer = await send();
    if (answer instanceof Error) {
      errors++;
      firstError ??= answer.message;
    } else {
      const ms = performance.now() - dueAt;
      const key = String(answer.status);
      const slice = timeline[Math.floor((dueAt - start) / SLICE_MS)];
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (answer.status === 200) {
        okMs.push(ms);
        slice.ok++;
        slice.okMaxMs = Math.max(slice.okMaxMs, Math.round(ms));
        const id = REQUEST_ID.exec(answer.head)?.[1];
        if (id !== undefined) ids.push(id);
      } else {
        refusedMs.push(ms);
        slice.refused++;
        slice.refusedMaxMs = Math.max(slice.refusedMaxMs, Math.round(ms));
        if (answer.status === 503 && RETRY_AFTER.test(answer.head)) refusedWithRetryAfter++;
      }
    }
    settled++;
    if (settled === total) finish();
  }

  // Every wake-up sends all the requests that fell due since the last; a timer of 1 ms is late by about
  // that much, and the latency of each is counted from its own due time regardless.
  function tick(): void {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    while (sent < due) {
      void fire(start + (sent * 1000) / rate);
      sent++;
    }
    if (sent < total) setTimeout(tick, 1);
  }

  setTimeout(tick, Math.max(0, start - performance.now()));
  if (total === 0) finish();
  await finished;
  const elapsedS = (performance.now() - start) / 1000;
  if (phase.idsFile !== undefined) writeFileSync(phase.idsFile, ids.join('\n'));
  return {
    offered: total,
    statuses,
    errors,
    firstError,
    ok: summary(okMs),
    refused: summary(refusedMs),
    sendLate: summary(lateMs),
    refusedWithRetryAfter,
    answeredPerS: Math.round((total - errors) / elapsedS),
    timeline,
    sliceMs: SLICE_MS,
  };
}

// Every connection is opened, and carries one request, before the first phase: a client whose pool grows
// under load opens hundreds of connections at once, and a saturated gateway's loop reaches its listening
// socket only between its turns of work (libuv then accepts every pending connection at once), so they
// wait in the kernel's accept queue, where no shedding sees them, and each first request waits behind
// the turn that accepts it. The phases measure requests; a warm pool keeps connection set-up out of them.
await warmPool();

// One phase a line on stdin, its result a line on stdout: one process (its compiled code, its open
// connections) serves every phase, so no phase measures a cold client.
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const result = await runPhase(JSON.parse(line) as OverloadPhase);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
process.exit(0);

/** Opens all `connections`, 50 at a time, each answering one request, and leaves them idle in the pool. */
async function warmPool(): Promise<void> {
  const all = Array.from({ length: options.connections }, () => new RawConnection(url, bytes));
  opened = all.length;
  for (let i = 0; i < all.length; i += 50) await Promise.all(all.slice(i, i + 50).map((c) => c.send()));
  idle.push(...all);
}

function summary(values: number[]): LatencySummary {
  values.sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 100) / 100;
  return {
    count: values.length,
    p50Ms: round(percentile(values, 50)),
    p99Ms: round(percentile(values, 99)),
    maxMs: round(values.length === 0 ? Number.NaN : values[values.length - 1]),
  };
}
