// The descriptor budget: what max_connections needs under a file limit, and the connector's cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ProviderConfig } from '../../src/core/config-types.ts';
import {
  budgetedConnector,
  DescriptorBudgetError,
  planDescriptors,
  setUpstreamConnectionCap,
  upstreamConnectionsImplied,
  upstreamConnectionsOpen,
} from '../../src/upstream/descriptor-budget.ts';

const provider = (o: Partial<ProviderConfig>): ProviderConfig => ({
  name: 'p',
  kind: 'openai',
  baseUrl: 'https://api.example.com/v1',
  apiKeys: [],
  headers: {},
  options: null,
  system: 'openai',
  inProcess: false,
  ...o,
});

test('upstream connections implied: one a client connection for HTTP/1.1, one per 100 streams + 4 for http2: true', () => {
  assert.equal(upstreamConnectionsImplied(1000, [provider({ inProcess: true })]), 0);
  assert.equal(upstreamConnectionsImplied(1000, [provider({})]), 1000);
  assert.equal(upstreamConnectionsImplied(1000, [provider({ http2: false })]), 1000);
  assert.equal(upstreamConnectionsImplied(1000, [provider({ http2: true })]), 14);
  assert.equal(upstreamConnectionsImplied(1000, [provider({ http2: true }), provider({ http2: 'auto' })]), 1014);
});

test('an explicit max_connections that cannot fit is an error naming the numbers and the largest that fits', () => {
  const plan = planDescriptors({
    limit: 256,
    hardLimit: 4096,
    maxConnections: 1000,
    explicit: true,
    providers: [provider({})],
  });
  assert.ok('error' in plan);
  assert.match(plan.error, /max_connections 1000 needs about 2064 file descriptors/);
  assert.match(plan.error, /file limit is 256/);
  assert.match(plan.error, /up to the hard limit 4096/);
  assert.match(plan.error, /at most 96/);
});

test('the default max_connections is lowered to fit; the upstream cap is what is left', () => {
  const plan = planDescriptors({
    limit: 256,
    hardLimit: 256,
    maxConnections: 10_000,
    explicit: false,
    providers: [provider({})],
  });
  assert.ok(!('error' in plan));
  assert.equal(plan.maxConnections, 96);
  assert.equal(plan.upstreamCap, 96);
  assert.equal(plan.lowered, true);
  const fits = planDescriptors({
    limit: 20_000,
    hardLimit: null,
    maxConnections: 5_000,
    explicit: true,
    providers: [],
  });
  assert.ok(!('error' in fits));
  assert.equal(fits.lowered, false);
  assert.equal(fits.upstreamCap, 20_000 - 400 - 5_000);
});

test('the connector refuses past the cap and gives a slot back when a socket closes', () => {
  const sockets: EventEmitter[] = [];
  const connect = budgetedConnector((_o: never, cb: (err: Error | null, s: never) => void) => {
    const s = new EventEmitter();
    sockets.push(s);
    cb(null, s as never);
    return s;
  });
  const before = upstreamConnectionsOpen();
  setUpstreamConnectionCap(before + 2);
  try {
    const results: (Error | null)[] = [];
    for (let i = 0; i < 3; i++) connect({} as never, (err) => results.push(err));
    assert.equal(results[0], null);
    assert.equal(results[1], null);
    assert.ok(results[2] instanceof DescriptorBudgetError);
    assert.equal(upstreamConnectionsOpen(), before + 2);
    sockets[0].emit('close');
    sockets[0].emit('close');
    assert.equal(upstreamConnectionsOpen(), before + 1);
    connect({} as never, (err) => assert.equal(err, null));
    assert.equal(upstreamConnectionsOpen(), before + 2);
  } finally {
    for (const s of sockets) s.emit('close');
    setUpstreamConnectionCap(Number.POSITIVE_INFINITY);
  }
});
