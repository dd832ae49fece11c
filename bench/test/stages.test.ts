// The stage pass: durations from recorded moments (literal sequences), the table, and the recorder
// preloaded into a real bare proxy in front of the mock (so a renamed diagnostics channel is caught).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { probe } from '../lib/measure.ts';
import { Child, NODE } from '../lib/processes.ts';
import { readStageSummary } from '../lib/stage-pass.ts';
import { stageTable } from '../lib/stage-report.ts';
import { stageTables } from '../lib/report.ts';
import type { TargetName } from '../lib/targets.ts';
import { CLIENT_WRITE, REQUEST_START, STAGE_NAMES, UPSTREAM_HEADERS, UPSTREAM_WRITTEN, stageDurations, summarizeStages } from '../lib/stages.ts';
import type { StageSummary } from '../lib/stages.ts';
import { createMockUpstream } from '../mock-upstream.ts';

const BENCH = new URL('..', import.meta.url).pathname;
const [toWrite, upstream, toClient, total] = STAGE_NAMES;

describe('stage durations', () => {
  it('times one request at a time from its four moments, in µs', () => {
    const d = stageDurations([REQUEST_START, 1_000, UPSTREAM_WRITTEN, 41_000, UPSTREAM_HEADERS, 241_000, CLIENT_WRITE, 271_000]);
    assert.deepEqual([d[toWrite], d[upstream], d[toClient], d[total]], [[40], [200], [30], [270]]);
  });

  it('counts only the first client write of a stream, and drops a request overtaken by the next', () => {
    const d = stageDurations([
      REQUEST_START, 0, UPSTREAM_WRITTEN, 10_000, // overtaken: no headers before the next request starts
      REQUEST_START, 100_000, UPSTREAM_WRITTEN, 110_000, UPSTREAM_HEADERS, 150_000, CLIENT_WRITE, 160_000, CLIENT_WRITE, 170_000,
      CLIENT_WRITE, 900_000, // a write with no request in progress
    ]);
    assert.deepEqual(d[total], [60]);
    assert.deepEqual(d[toWrite], [10]);
  });

  it('summarises p50, p90 and p99 per stage and carries the dump number', () => {
    const events: number[] = [];
    for (let i = 1; i <= 100; i += 1) events.push(REQUEST_START, 0, UPSTREAM_WRITTEN, i * 1000, UPSTREAM_HEADERS, i * 1000, CLIENT_WRITE, i * 1000);
    const s = summarizeStages(events, 7);
    assert.equal(s.seq, 7);
    assert.equal(s.requests, 100);
    assert.equal(s.stages[0].name, toWrite);
    assert.equal(s.stages[0].p50Us, 50);
    assert.equal(s.stages[0].p90Us, 90);
    assert.equal(s.stages[0].p99Us, 99);
  });

  it('renders modelgate beside the bare proxy with the differences of their p50s and p99s', () => {
    const summary = (p50: number): StageSummary => ({ seq: 1, requests: 5, stages: STAGE_NAMES.map((name) => ({ name, p50Us: p50, p90Us: p50 * 2, p99Us: p50 * 5 })) });
    const lines = stageTable(new Map([['modelgate', [summary(90)]], ['bare-proxy', [summary(40)]]]), 'Stages', 'requests');
    assert.ok(lines.includes(`| ${toWrite} | 90 (180, 450) | 40 (80, 200) | 50 | 250 |`), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('Requests timed: modelgate 5, bare proxy 5, over 1 alternated repetition(s).')), lines.join('\n'));
    assert.deepEqual(stageTable(new Map(), 'Stages'), []);
  });

  it('renders a run’s streams, then its non-streamed requests, and nothing for a run without the pass', () => {
    const summary = (p50: number): StageSummary => ({ seq: 1, requests: 5, stages: STAGE_NAMES.map((name) => ({ name, p50Us: p50, p90Us: p50 * 2, p99Us: p50 * 5 })) });
    const pair = new Map<TargetName, StageSummary[]>([['modelgate', [summary(90)]], ['bare-proxy', [summary(40)]]]);
    const lines = stageTables(new Map([['chat', pair], ['chat-stream', pair]]));
    const streams = lines.findIndex((l) => l.includes('one stream at a time'));
    const requests = lines.findIndex((l) => l.includes('one non-streamed request at a time'));
    assert.ok(streams !== -1 && requests > streams, lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('Streams timed:')) && lines.some((l) => l.startsWith('Requests timed:')), lines.join('\n'));
    assert.deepEqual(stageTables(new Map()), []);
  });
});

describe('stage timer preloaded into the bare proxy', () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'stage-timer-'));
  const mock = createMockUpstream({ chunks: 3, chunkSize: 5, pacing: 'tick', latencyMs: 0 }).server;
  let proxy: Child | undefined;
  after(async () => {
    await proxy?.stop();
    mock.closeAllConnections();
    mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports every stream and non-streamed request sent one at a time, with each stage timed', async () => {
    await new Promise<void>((resolve) => mock.listen(0, '127.0.0.1', resolve));
    const out = join(dir, 'summary.json');
    proxy = new Child({
      name: 'bare-proxy',
      command: NODE,
      args: ['--import', join(BENCH, 'stage-timer.ts'), join(BENCH, 'bare-proxy.ts'), '--port=0', `--upstream=http://127.0.0.1:${(mock.address() as AddressInfo).port}`],
      env: { ...process.env, STAGE_TIMER_OUT: out },
    });
    const port = await proxy.portLine(10_000);
    const request = { url: `http://127.0.0.1:${port}/v1/chat/completions`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: '{"model":"m","stream":true}' };
    for (let i = 0; i < 5; i += 1) assert.equal((await probe(request)).status, 200);
    // A whole JSON answer is one end() with no write before it: that is its first write to the client.
    for (let i = 0; i < 3; i += 1) assert.equal((await probe({ ...request, body: '{"model":"m"}' })).status, 200);
    proxy.proc.kill('SIGUSR2');
    const summary = await readStageSummary(out, 1);
    assert.equal(summary.requests, 8);
    for (const stage of summary.stages) assert.ok(stage.p50Us >= 0 && stage.p50Us < 1_000_000, `${stage.name}: ${stage.p50Us}`);
  });
});
