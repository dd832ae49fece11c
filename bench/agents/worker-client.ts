// How the agent bench talks to its clients and its mock: each client a process of its own
// (agent-worker.ts) printing one JSON line; the mock's /agent/ control paths.
import { join } from 'node:path';
import { request } from 'undici';
import { nodeWorker } from '../lib/processes.ts';

export const WORKER = join(import.meta.dirname, 'agent-worker.ts');

export async function mockJson<T>(mockUrl: string, path: string, method: 'GET' | 'POST'): Promise<T> {
  const res = await request(`${mockUrl}${path}`, { method });
  return (await res.body.json()) as T;
}

export async function runWorker<T>(args: object, key: string): Promise<T> {
  const child = nodeWorker({ name: 'agent-worker', args: [WORKER, JSON.stringify(args)] });
  await child.exit();
  return child.jsonLine<T>(key, 1000);
}
