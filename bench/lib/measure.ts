// One measured run against one target: CPU of the proxy's process tree before and after the load,
// plus the probe that proves a target really serves a scenario, and the warm-up.
import http from 'node:http';
import type { LoadGenerator, LoadRequest, LoadResult } from './load.ts';
import { cpuMicros, helperCpuSplit, processTree } from './proc-stats.ts';
import { WRITER_THREAD_NAME } from '../../src/store/usage-thread.ts';
import type { Target } from './targets.ts';

export interface Rep extends LoadResult {
  cpuUsPerReq: number;
  /** The part of cpuUsPerReq spent on threads other than the main ones (absent in older results). */
  helperCpuUsPerReq?: number;
  /** Of the helpers' part, modelgate's usage writer thread (writing every request's usage row); 0 elsewhere. */
  writerCpuUsPerReq?: number;
}

export async function measureLoad(options: {
  target: Target;
  request: LoadRequest;
  generator: LoadGenerator;
  connections: number;
  durationS: number;
}): Promise<Rep> {
  const pids = processTree(options.target.child.pid);
  const before = cpuMicros(pids);
  const threadsBefore = helperCpuSplit(pids, WRITER_THREAD_NAME);
  const load = await options.generator.run({
    request: options.request,
    connections: options.connections,
    durationS: options.durationS,
  });
  const after = cpuMicros(pids);
  const threadsAfter = helperCpuSplit(pids, WRITER_THREAD_NAME);
  const per = (us: number): number => (load.requests > 0 ? us / load.requests : Number.NaN);
  return {
    ...load,
    cpuUsPerReq: per(after - before),
    helperCpuUsPerReq: per(threadsAfter.helpers - threadsBefore.helpers),
    writerCpuUsPerReq: per(threadsAfter.named - threadsBefore.named),
  };
}

export interface ProbeResult {
  status: number;
  body: string;
}

/** Sends one request and reads the whole answer; a status of 0 means the connection failed. */
export function probe(request: LoadRequest): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const req = http.request(
      request.url,
      { method: request.method, headers: request.headers, agent: false, timeout: 10_000 },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, body: error.message }));
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.end(request.method === 'POST' ? request.body : undefined);
  });
}

/** Switches the mock upstream's spacing of stream events at run time (`ms`, or 'tick': one a turn). */
export async function setMockPacing(mockUrl: string, to: string): Promise<void> {
  const answer = await probe({ url: `${mockUrl}/pacing?to=${to}`, method: 'POST', headers: {}, body: '' });
  if (answer.status !== 200) throw new Error(`the mock refused pacing ${to}: ${answer.body}`);
}

/** Why a probe answer does not look like a served request, or undefined when it does. */
export function probeProblem(result: ProbeResult, streaming: boolean): string | undefined {
  if (result.status !== 200) return `status ${result.status}: ${result.body.slice(0, 200)}`;
  if (streaming && !result.body.includes('data:')) return `no SSE events in the answer: ${result.body.slice(0, 200)}`;
  return undefined;
}

/** Keeps 16 requests in flight for `ms` so JIT and pools are warm before anything is timed. */
export async function warmUp(request: LoadRequest, ms: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const deadline = Date.now() + ms;
  const loop = async (): Promise<void> => {
    while (Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const req = http.request(request.url, { method: request.method, headers: request.headers, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('error', () => resolve());
        });
        req.on('error', () => resolve());
        req.end(request.method === 'POST' ? request.body : undefined);
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, loop));
  agent.destroy();
}
