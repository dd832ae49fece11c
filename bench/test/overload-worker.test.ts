// The open-loop client of bench:overload against a server that refuses every third request with 503,
// retry-after and `connection: close`: every request of a phase is answered and counted once, each 200's
// request id is kept, the refusals are told apart, and a connection the server closes is opened again.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'node:test';
import { NODE } from '../lib/processes.ts';
import type { OverloadWorkerOptions, OverloadWorkerResult } from '../overload-worker.ts';

const WORKER = new URL('../overload-worker.ts', import.meta.url).pathname;

it('counts each request once, keeps 200s ids, tells refusals apart and reopens closed connections', async () => {
  let seen = 0;
  let connections = 0;
  const server = createServer((req, res) => {
    req.resume();
    seen++;
    if (seen % 3 === 0)
      res.writeHead(503, { 'retry-after': '1', connection: 'close', 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'x-request-id': `req_${seen}`, 'content-type': 'application/json' }).end('{"ok":1}');
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dir = mkdtempSync(join(os.tmpdir(), 'overload-worker-'));
  const options: OverloadWorkerOptions = {
    request: {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"m"}',
    },
    connections: 4,
  };
  const worker = spawn(NODE, [WORKER, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const idsFile = join(dir, 'ids');
    worker.stdin.end(`${JSON.stringify({ rate: 300, durationS: 0.5, idsFile })}\n`);
    const lines = createInterface({ input: worker.stdout })[Symbol.asyncIterator]();
    const result = JSON.parse((await lines.next()).value as string) as OverloadWorkerResult;
    assert.equal(result.offered, 150);
    assert.equal(result.errors, 0, result.firstError ?? '');
    const ok = result.statuses['200'] ?? 0;
    const refused = result.statuses['503'] ?? 0;
    assert.equal(ok + refused, 150);
    // The four warm-up requests came first; every third of all the server saw was refused.
    const warmUpRefused = Math.floor(4 / 3);
    assert.equal(refused, Math.floor(seen / 3) - warmUpRefused);
    assert.equal(result.refusedWithRetryAfter, refused);
    assert.equal(result.ok.count, ok);
    assert.equal(result.refused.count, refused);
    const ids = readFileSync(idsFile, 'utf8').split('\n');
    assert.equal(ids.length, ok);
    assert.ok(ids.every((id) => /^req_\d+$/.test(id)));
    // The pool's four, and one more for each connection the server closed after a 503 (the warm-up's
    // too) that carried another request: a connection reopens on its next send, so each of the four
    // may end closed.
    const closes = refused + warmUpRefused;
    assert.ok(connections >= closes && connections <= 4 + closes, `${connections} connections for ${closes} closes`);
  } finally {
    worker.kill();
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
