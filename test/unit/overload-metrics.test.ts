// The load shedder's state on /metrics: what shedding acts on, read at each scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../../src/observability/metrics.ts';

/** The value of an unlabelled series in a scrape, or undefined when it has no sample. */
function value(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

test('the admitted share and the loop lateness the shedder sees are scraped as they are at that moment', async () => {
  const metrics = new Metrics({ defaultMetrics: false });
  const shedder = { share: 1, delayMs: 3 };
  metrics.watchShedder(shedder);
  let text = await metrics.registry.metrics();
  assert.equal(value(text, 'modelgate_overload_admitted_share'), 1);
  assert.equal(value(text, 'modelgate_event_loop_lateness_seconds'), 0.003);
  shedder.share = 0.25;
  shedder.delayMs = 40;
  text = await metrics.registry.metrics();
  assert.equal(value(text, 'modelgate_overload_admitted_share'), 0.25);
  assert.equal(value(text, 'modelgate_event_loop_lateness_seconds'), 0.04);
});

test('with shedding off (overload_loop_delay_ms 0) the two series are absent', async () => {
  const metrics = new Metrics({ defaultMetrics: false });
  const text = await metrics.registry.metrics();
  assert.doesNotMatch(text, /modelgate_overload_admitted_share|modelgate_event_loop_lateness_seconds/);
  assert.equal(value(text, 'modelgate_overload_admitted_share'), undefined);
  assert.equal(value(text, 'modelgate_event_loop_lateness_seconds'), undefined);
});
