// A burst of new connections at a busy gateway waits in the kernel's accept queue: libuv accepts one
// connection per event-loop turn, so under load hundreds of them can be pending at once. The queue holds
// max_connections (capped by the kernel's net.core.somaxconn), not Node's default of 511, past which
// the kernel drops SYNs and clients retry only after 1 s, 3 s, 7 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startGateway, configYaml } from '../helpers/gateway-process.ts';

/** The listening socket's accept-queue bound on `port`, as the kernel reports it (ss's Send-Q). */
function acceptQueueBound(port: number): number {
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
    .trim()
    .split('\n')[0];
  return Number(line.split(/\s+/)[2]);
}

test('the accept queue holds max_connections, up to the kernel cap', async () => {
  const gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: 'max_connections: 3000',
    }),
  });
  try {
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    assert.equal(acceptQueueBound(gw.port), Math.min(somaxconn, 3000));
  } finally {
    await gw.cleanup();
  }
});
