// The held-streams scenario at a small N: every target holds every stream to its end, and over an HTTPS
// upstream offering HTTP/2 modelgate and the HTTP/2 bare proxy share connections where HTTP/1.1 takes one
// a stream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHeldStreams, streamsForLimit } from '../held-streams.ts';

test('streams for a file limit leave room for two descriptors a stream and the rest', () => {
  assert.equal(streamsForLimit(20_000, 9_000), 9_000);
  assert.equal(streamsForLimit(4_096, 9_000), 1_792);
  assert.equal(streamsForLimit(null, 3_000), 3_000);
});

test('12 streams held through each target, over plain HTTP and over HTTPS offering HTTP/2', async () => {
  // The test machine's other processes starve this gateway of CPU at times: its loop runs late for that,
  // not for these 12 streams, and a stream refused then would not say anything about holding streams.
  process.env.MODELGATE_OVERLOAD_LOOP_DELAY_MS = '0';
  const rows = await runHeldStreams({ streams: 12, tlsStreams: 12 });
  assert.equal(rows.length, 5);
  for (const r of rows) {
    assert.equal(r.completed, 12, `${r.target} over ${r.upstream}`);
    assert.equal(r.failed, 0, `${r.target} over ${r.upstream}`);
  }
  const at = (upstream: string, target: string) => rows.find((r) => r.upstream === upstream && r.target === target)!;
  const tls = 'HTTPS offering HTTP/2';
  // The mock's count includes the /stats request that reads it.
  assert.ok(at(tls, 'modelgate').upstreamConnections! <= 12 / 100 + 4 + 1);
  assert.ok(at(tls, 'bare-proxy (HTTP/2)').upstreamConnections! <= 2);
  assert.ok(at(tls, 'bare-proxy (HTTP/1.1)').upstreamConnections! >= 12);
  assert.ok(at('plain HTTP', 'modelgate').upstreamConnections! >= 12);
  // A stream over HTTP/2 costs its client connection's descriptor and a share of one upstream.
  assert.ok(at(tls, 'modelgate').descriptorsPerStream! < 1.5);
});
