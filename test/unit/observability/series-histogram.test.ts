import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from '../../../src/observability/series-histogram.ts';

const BUCKETS = [0.1, 1, 10];
const VALUES = [0.05, 0.1, 0.5, 3, 10, 42];

test('a bound series renders exactly as prom-client renders the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const a = new SeriesHistogram({
    name: 'h',
    help: 'x',
    labelNames: ['op', 'model'],
    buckets: BUCKETS,
    registers: [ours],
  });
  const b = new Histogram({ name: 'h', help: 'x', labelNames: ['op', 'model'], buckets: BUCKETS, registers: [theirs] });
  const s = a.series('chat', 'm"1');
  // A series bound but never observed is not exposed (as prom-client's labels() child).
  a.series('chat', 'never');
  b.labels('chat', 'never');
  for (const v of VALUES) {
    s.observe(v);
    b.labels('chat', 'm"1').observe(v);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.match(await ours.metrics(), /h_bucket\{le="\+Inf",op="chat",model="m\\"1"\} 6/);
  assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
});

test('the same label values give the same series; reset clears the counts; NaN is not counted', async () => {
  const registry = new Registry();
  const h = new SeriesHistogram({ name: 'h', help: 'x', labelNames: ['op'], buckets: BUCKETS, registers: [registry] });
  assert.equal(h.series('a'), h.series('a'));
  h.series('a').observe(2);
  h.series('a').observe(Number.NaN);
  assert.match(await registry.metrics(), /h_count\{op="a"\} 1\n/);
  assert.match(await registry.metrics(), /h_sum\{op="a"\} 2\n/);
  h.reset();
  assert.doesNotMatch(await registry.metrics(), /op="a"/);
  assert.throws(() => h.series('a', 'b'), /takes 1 label values, not 2/);
});
