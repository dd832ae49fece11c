// Statistics, generated configs and the headline that checks issue 6's targets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Rep } from '../lib/measure.ts';
import { wrkScript } from '../lib/load.ts';
import { nginxConfig } from '../lib/nginx-config.ts';
import { headline, renderResults } from '../lib/report.ts';
import type { RunResults } from '../lib/report.ts';
import { LOAD_SCENARIOS } from '../lib/scenarios.ts';
import { median, percentile } from '../lib/stats.ts';
import type { TargetName } from '../lib/targets.ts';

function rep(cpuUsPerReq: number, p50Us = 1000): Rep {
  return { requests: 1000, rps: 1000, p50Us, p99Us: p50Us * 2, errors: 0, cpuUsPerReq };
}

function results(cpu: Partial<Record<TargetName, number>>): RunResults {
  const scenario = LOAD_SCENARIOS.find((s) => s.id === 'chat-c50');
  assert.ok(scenario);
  return {
    date: '2026-01-01',
    mode: 'quick',
    header: [],
    notes: [],
    skipped: [],
    load: Object.entries(cpu).map(([target, value]) => ({ scenario, target: target as TargetName, reps: [rep(value * 2), rep(value), rep(value)] })),
    ttfb: new Map(),
    hold: [],
  };
}

describe('stats', () => {
  it('takes medians and nearest-rank percentiles', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.ok(Number.isNaN(median([])));
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5);
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99), 10);
  });
});

describe('headline', () => {
  it('computes the ratios from medians and checks the CPU targets', () => {
    const text = headline(results({ modelgate: 80, 'bare-proxy': 70, nginx: 20, portkey: 800 })).join('\n');
    assert.match(text, /\| modelgate \/ bare-proxy \| 1\.14 \|/);
    assert.match(text, /\| modelgate \/ nginx \| 4\.00 \|/);
    assert.match(text, /\| Portkey \/ modelgate \| 10\.00 \|/);
    assert.match(text, /≤ 1\.25 × bare proxy \| 1\.14 × \| met \|/);
    assert.match(text, /7 × less than Portkey \| 10\.00 × \| met \|/);
  });

  it('marks a missed target and an unmeasured one', () => {
    const text = headline(results({ modelgate: 200, 'bare-proxy': 70 })).join('\n');
    assert.match(text, /≤ 1\.25 × bare proxy \| 2\.86 × \| \*\*missed\*\* \|/);
    assert.match(text, /Portkey \| — × \| not measured \|/);
  });

  it('judges the RSS target on a fresh process and shows the after-load reading beside it', () => {
    const r = results({ modelgate: 80, 'bare-proxy': 70 });
    const hold = { target: 'modelgate' as const, streams: 1000, ready: 1000, failed: 0, completed: 1000, rssIdleMb: 100, probeIdleP50Us: 100, probeIdleP99Us: 200, probeHoldP50Us: 100, probeHoldP99Us: 300 };
    r.hold = [{ ...hold, phase: 'after load', rssHoldMb: 310 }, { ...hold, phase: 'fresh process', rssHoldMb: 180 }];
    const text = headline(r).join('\n');
    assert.match(text, /holding 1000 streams \(fresh process\) \| 180\.0 MB \| met \|/);
    assert.match(text, /served every load scenario first \| 310\.0 MB \| \*\*missed\*\* \|/);
    assert.match(renderResults(r), /\| modelgate \| after load \| 1000\/1000 \|/);
  });

  it('renders a table row per target', () => {
    const text = renderResults(results({ modelgate: 80, 'bare-proxy': 70 }));
    assert.match(text, /\| modelgate \| 1,000 \| 1\.00 \| 2\.00 \| 80\.0 \| 1\.14 \| 0\/3000 \|/);
  });
});

describe('generated configs', () => {
  it('nginx proxies through a keepalive pool with its own pid and log paths', () => {
    const conf = nginxConfig({ dir: '/tmp/x', listenPort: 9001, upstreamPort: 9002 });
    assert.match(conf, /listen 127\.0\.0\.1:9001;/);
    assert.match(conf, /server 127\.0\.0\.1:9002;\n\s+keepalive \d+;/);
    assert.match(conf, /proxy_set_header Connection "";/);
    assert.match(conf, /pid \/tmp\/x\/nginx\.pid;/);
    assert.match(conf, /daemon off;/);
  });

  it('wrk posts the body file with every header and prints a JSON summary', () => {
    const lua = wrkScript({ url: 'http://x/', method: 'POST', headers: { authorization: 'Bearer k"1' }, body: '{}' }, '/tmp/b.json');
    assert.match(lua, /wrk\.method = "POST"/);
    assert.match(lua, /io\.open\("\/tmp\/b\.json", "rb"\)/);
    assert.match(lua, /wrk\.headers\["authorization"\] = "Bearer k\\"1"/);
    assert.match(lua, /latency:percentile\(99\)/);
  });
});
