// The open-streams scenario: park N streams in the proxy (the mock holds them after the first event),
// read the proxy's RSS, and time a cheap request meanwhile — event-loop delay as seen from outside.
import { join } from 'node:path';
import type { LoadRequest } from './load.ts';
import { probe } from './measure.ts';
import { Child, NODE } from './processes.ts';
import { descriptorCount, processTree, rssBytes } from './proc-stats.ts';
import type { HoldResult } from './report.ts';
import { runSequential } from './sequential-client.ts';
import { percentile } from './stats.ts';
import type { Target } from './targets.ts';

const WORKER = join(new URL('..', import.meta.url).pathname, 'hold-worker.ts');
const MB = 1024 * 1024;

export async function runHold(options: {
  target: Target;
  phase: HoldResult['phase'];
  streams: number;
  probeCount: number;
  mockUrl: string;
  readyTimeoutMs: number;
}): Promise<HoldResult> {
  const { target } = options;
  await probe({ url: `${options.mockUrl}/hold/arm`, method: 'POST', headers: {}, body: '' });
  const cheap: LoadRequest = { url: `${target.baseUrl}/healthz`, method: 'GET', headers: {}, body: '' };
  const idle = await runSequential({ request: cheap, count: options.probeCount, warmup: 20 });
  const rssIdle = rssBytes(processTree(target.child.pid));
  const descriptorsIdle = descriptorCount(processTree(target.child.pid));
  const worker = new Child({
    name: 'hold-worker',
    command: NODE,
    args: [
      WORKER,
      JSON.stringify({
        request: target.request('hold-stream'),
        streams: options.streams,
        readyTimeoutMs: options.readyTimeoutMs,
      }),
    ],
  });
  try {
    const ready = await worker.jsonLine<{ ready: number; failed: number }>('ready', options.readyTimeoutMs + 5000);
    const rssHold = rssBytes(processTree(target.child.pid));
    const descriptorsHold = descriptorCount(processTree(target.child.pid));
    const upstreamConnections = await mockConnections(options.mockUrl);
    const during = await runSequential({ request: cheap, count: options.probeCount, warmup: 0 });
    await probe({ url: `${options.mockUrl}/release`, method: 'POST', headers: {}, body: '' });
    const done = await worker.jsonLine<{ done: number; failed: number }>('done', 30_000);
    return {
      target: target.name,
      phase: options.phase,
      streams: options.streams,
      ready: ready.ready,
      failed: done.failed,
      completed: done.done,
      rssIdleMb: rssIdle / MB,
      rssHoldMb: rssHold / MB,
      probeIdleP50Us: percentile(idle.totalUs, 50),
      probeIdleP99Us: percentile(idle.totalUs, 99),
      probeHoldP50Us: percentile(during.totalUs, 50),
      probeHoldP99Us: percentile(during.totalUs, 99),
      descriptorsIdle,
      descriptorsHold,
      upstreamConnections,
    };
  } finally {
    // Never leave parked streams behind for the next target.
    await probe({ url: `${options.mockUrl}/release`, method: 'POST', headers: {}, body: '' });
    await worker.stop();
  }
}

/** The connections the mock has open now (its /stats), or undefined from a mock that does not count them. */
async function mockConnections(mockUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${mockUrl}/stats`);
    const stats = (await res.json()) as { connections?: number };
    return stats.connections;
  } catch {
    return undefined;
  }
}
