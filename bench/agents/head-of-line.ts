// Whether one big request delays small ones behind it: small streamed /v1/messages requests one at a time,
// alone, then while a second client keeps an uncached 100k-token Claude Code request in flight.
import { nodeWorker } from '../lib/processes.ts';
import { percentile } from '../lib/stats.ts';
import type { AgentBenchOptions } from './run.ts';
import type { AgentTarget, AgentTargetName } from './targets.ts';
import { WORKER, mockJson, runWorker } from './worker-client.ts';

const SMALL_WARMUP = 20;
export const PREFILL_US_PER_TOKEN = 2;

export interface SmallSummary {
  p50Us: number;
  p99Us: number;
  /** The slowest: a stall behind a big body shows here even when too few fall in the 1 % for the p99. */
  maxUs: number;
  count: number;
}

export interface HeadOfLineRow {
  target: AgentTargetName;
  alone: SmallSummary;
  withBig: SmallSummary;
  /** Big requests completed while the small ones ran, and one's size. */
  bigCompleted: number;
  bigBytes: number;
  /** Small requests answered 503 or 529 and retried. */
  retries: number;
  errors: number;
}

export interface SmallLine {
  totalUs: number[];
  errors: number;
  retries: number;
}

export interface HeadOfLineSample {
  alone: SmallLine;
  withBig: SmallLine;
  big: { big: number; bytes: number; errors: number };
}

/**
 * Small requests alone, then while a second client keeps one uncached 100k-token request in flight: the mock
 * waits PREFILL_US_PER_TOKEN a token it has not cached before answering (a 100k prompt: 200 ms), as a
 * provider's time to first token grows with the prompt, so a new big body reaches the proxy a few times a
 * second rather than back to back.
 */
export async function sampleHeadOfLine(
  target: AgentTarget,
  options: AgentBenchOptions,
  mockUrl: string,
  nonce: string,
): Promise<HeadOfLineSample> {
  const small = { mode: 'small', endpoint: target.endpoint, count: options.smallRequests, warmup: SMALL_WARMUP };
  await mockJson(mockUrl, `/agent/prefill?us=${PREFILL_US_PER_TOKEN}`, 'POST');
  try {
    return await smallBesideBig(target, options, small, nonce);
  } finally {
    await mockJson(mockUrl, '/agent/prefill?us=0', 'POST');
  }
}

async function smallBesideBig(
  target: AgentTarget,
  options: AgentBenchOptions,
  small: object,
  nonce: string,
): Promise<HeadOfLineSample> {
  const alone = await runWorker<SmallLine>(small, 'small');
  const big = nodeWorker({
    name: 'agent-worker (big)',
    args: [
      WORKER,
      JSON.stringify({
        mode: 'big',
        endpoint: target.endpoint,
        contextTokens: options.maxContextTokens,
        preambleBytes: options.preambleBytes,
        nonce,
      }),
    ],
  });
  let withBig: SmallLine;
  try {
    await big.jsonLine('bigStarted', 60_000);
    withBig = await runWorker<SmallLine>(small, 'small');
  } finally {
    await big.stop();
  }
  return { alone, withBig, big: await big.jsonLine('big', 1000) };
}

export function headOfLineRow(target: AgentTargetName, samples: readonly HeadOfLineSample[]): HeadOfLineRow {
  const pooled = (pick: (s: HeadOfLineSample) => SmallLine) => {
    const all = samples.flatMap((s) => pick(s).totalUs);
    return { p50Us: percentile(all, 50), p99Us: percentile(all, 99), maxUs: percentile(all, 100), count: all.length };
  };
  let retries = 0;
  let errors = 0;
  let bigCompleted = 0;
  for (const s of samples) {
    retries += s.alone.retries + s.withBig.retries;
    errors += s.alone.errors + s.withBig.errors + s.big.errors;
    bigCompleted += s.big.big;
  }
  return {
    target,
    alone: pooled((s) => s.alone),
    withBig: pooled((s) => s.withBig),
    bigCompleted,
    bigBytes: samples[0]?.big.bytes ?? 0,
    retries,
    errors,
  };
}
