// Shedding on event-loop load, with an injected loop sample and mocked timers instead of real overload.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { LoadShedder, PauseRun, type LoopSample } from '../../src/http/load-shedding.ts';
import { renderError } from '../../src/dialects/render-error.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { endpoint, Router } from '../../src/http/endpoint.ts';
import type { AddressInfo } from 'node:net';

/** A shedder fed samples by hand, sampled on mocked timers (10 ms apart). */
function fedShedder(thresholdMs = 20): { shedder: LoadShedder; feed: (s: LoopSample, times?: number) => void } {
  let next: LoopSample = { delayMs: 0, utilisation: 0 };
  const shedder = new LoadShedder({ thresholdMs, sample: () => next, sampleMs: 10 });
  return {
    shedder,
    feed(s, times = 1) {
      next = s;
      mock.timers.tick(10 * times);
    },
  };
}

/** Runs `body` with setInterval on mocked timers, reset after whatever it throws. */
function onMockedTimers(body: () => void): void {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    body();
  } finally {
    mock.timers.reset();
  }
}

/** How many of `n` new requests the shedder admits. */
function admitted(shedder: LoadShedder, n: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (!shedder.shedding || shedder.admit()) count++;
  return count;
}

test('a loop with idle time sheds nothing; one late sample alone (a collection pause) sheds nothing', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder();
    feed({ delayMs: 1, utilisation: 0.7 }, 50);
    assert.equal(shedder.shedding, false);
    // A 400 ms pause: twenty times the threshold, but one sample.
    feed({ delayMs: 400, utilisation: 0.7 });
    assert.equal(shedder.shedding, false);
    feed({ delayMs: 1, utilisation: 0.7 }, 100);
    feed({ delayMs: 80, utilisation: 0.7 });
    feed({ delayMs: 1, utilisation: 0.7 });
    assert.equal(shedder.shedding, false);
    assert.equal(admitted(shedder, 100), 100);
    shedder.stop();
  }));

test('a backlog (two samples running late past the threshold, for five times as long) cuts the admitted share at once, more the later the loop runs', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(20);
    feed({ delayMs: 1, utilisation: 0.5 }, 10);
    feed({ delayMs: 40, utilisation: 0.8 });
    assert.equal(shedder.shedding, false, 'one late sample: 50 ms late of the 100 a backlog takes');
    feed({ delayMs: 100, utilisation: 0.8 });
    assert.equal(shedder.shedding, true, '160 ms late');
    assert.equal(shedder.share, 0.2, '20 ms of 100: a fifth admitted');
    // The credit admits exactly one in five, spread evenly.
    const decisions = Array.from({ length: 10 }, () => shedder.admit());
    assert.deepEqual(decisions, [false, false, false, false, true, false, false, false, false, true]);
    shedder.stop();
  }));

test('a loop busy all the time without a queue (clients that wait for each answer) sheds nothing', () =>
  onMockedTimers(() => {
    // 25 clients, each sending its next request when the last is answered: saturated, a few ms a turn.
    const { shedder, feed } = fedShedder(100);
    feed({ delayMs: 3, utilisation: 1 }, 3000);
    assert.equal(shedder.shedding, false);
    // 15 ms late (50 connections of costly requests keep a warm loop 10 – 20 ms late), still no queue,
    // and single samples past half the threshold do not make one.
    for (let i = 0; i < 300; i++) {
      feed({ delayMs: 15, utilisation: 1 }, 9);
      feed({ delayMs: 65, utilisation: 1 });
    }
    assert.equal(shedder.shedding, false);
    assert.equal(admitted(shedder, 100), 100);
    shedder.stop();
  }));

test('a burst the loop clears is served; sustained saturation with a queue sheds a growing share, and an end of the queue ends it', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(100);
    feed({ delayMs: 2, utilisation: 0.5 }, 100);
    // Busy all the time with a queue for 390 ms (3 samples each 130 ms apart): a burst, served.
    feed({ delayMs: 120, utilisation: 1 }, 3);
    assert.equal(shedder.shedding, false, 'a 390 ms burst is not an overload');
    feed({ delayMs: 2, utilisation: 0.5 }, 100);
    assert.equal(shedder.shedding, false);
    // A burst of new requests that holds the loop 250 ms, then 200, then clears: served too.
    feed({ delayMs: 250, utilisation: 1 });
    feed({ delayMs: 200, utilisation: 1 });
    assert.equal(shedder.shedding, false, 'a burst the loop clears within half a second is not an overload');
    feed({ delayMs: 2, utilisation: 0.5 });
    assert.equal(shedder.shedding, false);
    feed({ delayMs: 2, utilisation: 0.5 }, 100);
    // Busy on and on with a queue: the utilisation steers.
    let samples = 0;
    while (!shedder.shedding && samples < 1000) {
      feed({ delayMs: 120, utilisation: 1 });
      samples++;
    }
    const busyMs = samples * 130;
    assert.ok(busyMs >= 500 && busyMs < 2000, `shedding began after ${busyMs} ms saturated`);
    const first = shedder.share;
    feed({ delayMs: 120, utilisation: 1 }, 3);
    // Each sample cuts on: by half or more while the backlog lasts (its cut is the larger one here).
    assert.ok(Math.abs(shedder.share - first * 0.5 ** 3) < 1e-9, `${shedder.share} after ${first}`);
    assert.ok(admitted(shedder, 1000) < 300);
    // The loop mostly idle again: back to admitting everything within a second (a hundredth a sample).
    for (let i = 0; i < 300 && shedder.shedding; i++) {
      admitted(shedder, 1);
      feed({ delayMs: 1, utilisation: 0.3 });
    }
    assert.equal(shedder.shedding, false);
    assert.equal(shedder.share, 1);
    assert.equal(admitted(shedder, 100), 100);
    shedder.stop();
  }));

/** A shedder holding a standing queue: busy and 40 ms late (of a 100 ms threshold) until it sheds. */
function standingShedder(): ReturnType<typeof fedShedder> {
  const fed = fedShedder(100);
  fed.feed({ delayMs: 2, utilisation: 0.5 }, 100);
  for (let i = 0; i < 1000 && !fed.shedder.shedding; i++) fed.feed({ delayMs: 40, utilisation: 1 });
  assert.equal(fed.shedder.standing, true);
  return fed;
}

/** Feeds `samples` samples of `s`, with `arrivals` new requests put to the shedder before each. */
function feedWithArrivals(
  shedder: LoadShedder,
  feed: (s: LoopSample) => void,
  s: LoopSample,
  samples: number,
  arrivals: number,
): void {
  for (let i = 0; i < samples; i++) {
    admitted(shedder, arrivals);
    feed(s);
  }
}

test('a standing queue (busy and a quarter of the threshold late for half a second) is held under 5 ms late until new requests slow down', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(100);
    feed({ delayMs: 2, utilisation: 0.5 }, 100);
    // 40 ms late and saturated: under the queue gate (50 ms), so only a standing queue says overload.
    let samples = 0;
    while (!shedder.shedding && samples < 1000) {
      feed({ delayMs: 40, utilisation: 1 });
      samples++;
    }
    assert.equal(shedder.standing, true);
    const busyMs = samples * 50;
    assert.ok(busyMs >= 500 && busyMs < 1500, `shedding began after ${busyMs} ms busy and late`);
    // Still later than the hold: the share goes on shrinking, whatever the utilisation (5 % per 10 ms of
    // wall time: four samples 40 ms late cover 200 ms).
    const first = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 40, utilisation: 0.8 }, 4, 100);
    assert.ok(shedder.share < first * 0.95 ** 10, `${shedder.share} after ${first}`);
    // Under the hold and under 80 % busy while requests keep coming as fast: the share grows back, by a
    // thousandth a sample at most, less the nearer the loop runs to the hold.
    feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.7 }, 100, 100);
    const low = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.7 }, 50, 100);
    const grown = shedder.share - low;
    assert.ok(grown > 0.035 && grown <= 0.05, `grew by ${grown}: 1 ms late of a 5 ms hold, about four fifths of 0.05`);
    feedWithArrivals(shedder, feed, { delayMs: 4.5, utilisation: 0.7 }, 50, 100);
    const nearer = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 4.5, utilisation: 0.7 }, 50, 100);
    assert.ok(shedder.share - nearer < grown / 3, `grew by ${shedder.share - nearer} at 4.5 ms late`);
    assert.equal(shedder.standing, true, 'new requests still come faster than the loop kept up with');
    // The overload ends (new requests a hundredth as fast, the loop still busy with what it admitted):
    // the hold ends once the rates tell, and the share grows back as without one, a hundredth a sample,
    // so an overload that is not over shows as a queue building before the loop is flooded.
    let ended = 0;
    while (shedder.standing && ended < 200) {
      feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8 }, 1, 1);
      ended++;
    }
    assert.equal(shedder.standing, false);
    assert.ok(ended < 30, `the hold ended ${ended * 10} ms after new requests slowed`);
    const atEnd = shedder.share;
    assert.ok(atEnd < 0.9, `${atEnd}: not whole at once`);
    feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8 }, 10, 1);
    assert.ok(Math.abs(shedder.share - (atEnd + 0.1)) < 1e-9, `${shedder.share} ten samples after ${atEnd}`);
    feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8 }, 100, 1);
    assert.equal(shedder.shedding, false);
    assert.equal(admitted(shedder, 100), 100);
    shedder.stop();
  }));

test('a held loop on time grows back only under 80 % busy, holds between that and saturation, and is cut while saturated', () =>
  onMockedTimers(() => {
    const { shedder, feed } = standingShedder();
    feedWithArrivals(shedder, feed, { delayMs: 40, utilisation: 0.9 }, 4, 100);
    // On time and 90 % busy (smoothed and in each sample): no growth, whatever the lateness allows.
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 0.9 }, 100, 100);
    const busy = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 0.9 }, 50, 100);
    assert.equal(shedder.share, busy, 'held between 80 % busy and saturation');
    // On time but saturated: nothing spare for the next pause, so it comes down, 2 % a sample.
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 1 }, 100, 100);
    const saturated = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 1 }, 10, 100);
    assert.ok(Math.abs(shedder.share - saturated * 0.98 ** 10) < 1e-9, `${shedder.share} after ${saturated}`);
    assert.equal(shedder.standing, true);
    // 70 % busy: it grows back again.
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 0.7 }, 100, 100);
    const idler = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 0, utilisation: 0.7 }, 10, 100);
    assert.ok(shedder.share > idler, `${shedder.share} after ${idler}`);
    shedder.stop();
  }));

test('a held loop running late is cut by so much per 10 ms of wall time, not per sample: a late loop samples rarely', () =>
  onMockedTimers(() => {
    const { shedder, feed } = standingShedder();
    // Late past twice the hold in the sample and smoothed: one sample covering 50 ms (10 ms and 40 ms
    // late) cuts as five samples of 10 ms would, by 5 % each.
    feedWithArrivals(shedder, feed, { delayMs: 40, utilisation: 1 }, 5, 100);
    const before = shedder.share;
    feedWithArrivals(shedder, feed, { delayMs: 40, utilisation: 1 }, 1, 100);
    assert.ok(Math.abs(shedder.share - Math.max(0.02, before * 0.95 ** 5)) < 1e-9, `${shedder.share} after ${before}`);
    shedder.stop();
  }));

test('a held share with a backlog in flight grows back fast only when the loop is idle over half a second, not on one idle sample', () =>
  onMockedTimers(() => {
    const { shedder, feed } = standingShedder();
    // Cut while later than the hold, then under it and 80 % busy with 100 in flight, new requests still coming as fast.
    feedWithArrivals(shedder, feed, { delayMs: 40, utilisation: 0.8, inFlight: 100 }, 20, 100);
    feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8, inFlight: 100 }, 5, 100);
    assert.equal(shedder.standing, true);
    const before = shedder.share;
    // Idle samples between bursts (every other one 30 % busy): a thousandth a sample at most, as held.
    for (let i = 0; i < 10; i++) {
      feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.3, inFlight: 100 }, 1, 100);
      feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8, inFlight: 100 }, 1, 100);
    }
    assert.ok(shedder.share - before <= 20 * 0.001 + 1e-9, `grew by ${shedder.share - before} in 20 samples`);
    // The same with one request in flight (a client that sends again at once): idle samples are idle time.
    const few = shedder.share;
    for (let i = 0; i < 5; i++) {
      feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.3, inFlight: 1 }, 1, 100);
      feedWithArrivals(shedder, feed, { delayMs: 1, utilisation: 0.8, inFlight: 1 }, 1, 100);
    }
    assert.ok(shedder.share - few >= 5 * 0.01 - 1e-9, `grew by ${shedder.share - few} in 10 samples`);
    shedder.stop();
  }));

/**
 * A loop served by one thread, as a model: requests arrive at `ratePerMs` (open loop) and wait in arrival
 * order; the loop runs them in turns, each turn the upstream answers that are in and at most `connections`
 * new requests (one request a connection, as node:http reads them). An admitted request costs half of
 * `servedMs` when it begins and half when its upstream answers, `upstreamMs` later; a refused one costs
 * `refusedMs`. The sampling timer runs between turns, as late as the turn made it, and sees the loop's
 * utilisation and the requests in flight and begun. Returns each request's time to its answer by when it
 * arrived.
 */
function runLoopModel(o: {
  ratePerMs: (atMs: number) => number;
  servedMs: number;
  refusedMs: number;
  connections: number;
  durationMs: number;
  upstreamMs?: number;
}): {
  served: Array<{ atMs: number; waitMs: number }>;
  refused: Array<{ atMs: number; waitMs: number }>;
  samples: Array<{ atMs: number; shedding: boolean; standing: boolean }>;
} {
  const { shedder, feed } = fedShedder(50);
  const upstreamMs = o.upstreamMs ?? 20;
  const served: Array<{ atMs: number; waitMs: number }> = [];
  const refused: Array<{ atMs: number; waitMs: number }> = [];
  const samples: Array<{ atMs: number; shedding: boolean; standing: boolean }> = [];
  const waiting: number[] = [];
  /** Requests begun, by when their upstream answers (in that order), with when they arrived. */
  const answering: Array<{ dueMs: number; atMs: number }> = [];
  let now = 0;
  let nextArrival = 0;
  let due = 10;
  let busyMs = 0;
  let sampledAt = 0;
  let started = 0;
  const sample = (): void => {
    const inFlight = answering.length;
    feed({ delayMs: now - due, utilisation: Math.min(1, busyMs / (now - sampledAt)), started, inFlight });
    samples.push({ atMs: now, shedding: shedder.shedding, standing: shedder.standing });
    sampledAt = now;
    busyMs = 0;
    due = now + 10;
  };
  const work = (ms: number): void => {
    now += ms;
    busyMs += ms;
  };
  while (now < o.durationMs) {
    for (; nextArrival <= now; nextArrival += 1 / o.ratePerMs(nextArrival)) waiting.push(nextArrival);
    const answered = answering.findIndex((a) => a.dueMs > now);
    const inNow = answered === -1 ? answering.length : answered;
    if (waiting.length === 0 && inNow === 0 && now < due)
      now = Math.min(nextArrival, due, answering[0]?.dueMs ?? Number.POSITIVE_INFINITY);
    else {
      for (const { atMs } of answering.splice(0, Math.min(inNow, o.connections))) {
        work(o.servedMs / 2);
        served.push({ atMs, waitMs: now - atMs });
      }
      for (const atMs of waiting.splice(0, o.connections)) {
        if (!shedder.shedding || shedder.admit()) {
          work(o.servedMs / 2);
          started++;
          answering.push({ dueMs: now + upstreamMs, atMs });
        } else {
          work(o.refusedMs);
          refused.push({ atMs, waitMs: now - atMs });
        }
      }
      if (now >= due) sample();
    }
  }
  shedder.stop();
  return { served, refused, samples };
}

/** The `q` quantile of `values`. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
}

// A served request costs 0.17 ms of the loop (about 5.9 a millisecond at most), a refusal 27 % of that.
const SERVED_MS = 0.17;
const REFUSED_MS = 0.27 * SERVED_MS;

test('three times what the loop can serve, after a rate it held: held to the end, admitted requests keep their latency and the rest are refused fast', () =>
  onMockedTimers(() => {
    const capacity = 1 / SERVED_MS;
    const { served, refused, samples } = runLoopModel({
      ratePerMs: (atMs) => (atMs < 5_000 ? 0.9 * capacity : 3 * capacity),
      servedMs: SERVED_MS,
      refusedMs: REFUSED_MS,
      connections: 1_000,
      durationMs: 20_000,
    });
    const held = samples.filter((s) => s.atMs >= 8_000);
    assert.ok(
      held.every((s) => s.standing),
      'held from three seconds in to the end',
    );
    const late = served.filter((r) => r.atMs >= 8_000).map((r) => r.waitMs);
    assert.ok(late.length > 1_000, `${late.length} admitted`);
    assert.ok(quantile(late, 0.99) < 20 + 5, `admitted p99 ${quantile(late, 0.99)} ms, 20 of them upstream`);
    assert.ok(
      quantile(
        refused.filter((r) => r.atMs >= 8_000).map((r) => r.waitMs),
        0.99,
      ) < 5,
    );
  }));

/** Feeds one sample a step: busy and `delayMs` late, the requests in flight as `inFlight(step)` says. */
function feedInFlight(
  feed: (s: LoopSample) => void,
  steps: number,
  sample: (step: number) => LoopSample,
  until: () => boolean = () => false,
): number {
  for (let step = 0; step < steps; step++) {
    feed(sample(step));
    if (until()) return step + 1;
  }
  return steps;
}

test('a queue building (requests in flight growing half again within 100 ms, the loop busy and late) is cut to what the loop finishes and held within a tenth of a second', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(100);
    // The sustainable rate: 60 requests in flight, 40 begun (and finished) a sample, the loop 70 % busy.
    feedInFlight(feed, 100, (step) => ({ delayMs: 1, utilisation: 0.7, inFlight: 60, started: 40 * step }));
    assert.equal(shedder.shedding, false);
    // Three times that: 120 begin every 18 ms of wall time (10 ms, and 8 ms late), 60 of them finish and
    // 60 more are in flight. The smoothed signals would wait most of a second; growth says it at once.
    const at = (step: number): LoopSample => ({
      delayMs: 8,
      utilisation: 1,
      inFlight: 60 + 60 * (step + 1),
      started: 4000 + 120 * (step + 1),
    });
    const samples = feedInFlight(feed, 100, at, () => shedder.shedding);
    assert.ok(samples * 18 <= 150, `held after ${samples * 18} ms`);
    assert.equal(shedder.standing, true);
    // Cut to four fifths of what the loop finished over what began (60 of 120): the rest drains the queue.
    assert.ok(Math.abs(shedder.share - 0.4) < 1e-9, `share ${shedder.share}`);
    // Held and still growing as fast: the next cut waits for a window of growth of its own.
    const held = shedder.share;
    feed(at(samples));
    assert.ok(shedder.share > held * 0.5, 'not cut again at the next sample');
    feedInFlight(feed, 10, (step) => at(samples + step + 1));
    assert.ok(shedder.share <= held * 0.5, `cut again by a second window of growth: ${shedder.share} after ${held}`);
    shedder.stop();
  }));

test('a queue building seen as lateness: saturated samples each later than the last, with more in flight each time, cut the share on the second', () =>
  onMockedTimers(() => {
    const onset = [
      { delayMs: 8, utilisation: 1, inFlight: 41, started: 10_020 },
      { delayMs: 19, utilisation: 1, inFlight: 57, started: 10_060 },
      { delayMs: 26, utilisation: 1, inFlight: 83, started: 10_105 },
    ];
    const { shedder, feed } = fedShedder(100);
    feedInFlight(feed, 100, () => ({ delayMs: 1, utilisation: 0.5, inFlight: 40, started: 10_000 }));
    // An overload's first tenth of a second, as measured: 26 more in flight than 100 ms before, under the
    // 64 a window's growth asks for, but the loop saturated and later each sample.
    feed(onset[0]);
    feed(onset[1]);
    assert.equal(shedder.shedding, false, 'one rising sample past twice the hold is not yet a queue');
    feed(onset[2]);
    assert.equal(shedder.shedding, true);
    assert.equal(shedder.standing, true, 'held as a standing queue');
    assert.ok(shedder.share <= 0.5, `${shedder.share}`);
    // The same lateness with the requests in flight steady (clients that wait for their answers), or
    // growing right after a long collection pause, is not a queue building.
    const steady = fedShedder(100);
    feedInFlight(steady.feed, 100, () => ({ delayMs: 1, utilisation: 0.5, inFlight: 40 }));
    for (const o of onset) steady.feed({ ...o, inFlight: 40 });
    assert.equal(steady.shedder.shedding, false);
    const paused = fedShedder(100);
    feedInFlight(paused.feed, 100, () => ({ delayMs: 1, utilisation: 0.5, inFlight: 40 }));
    for (const o of onset) paused.feed({ ...o, sincePauseMs: 50 });
    assert.equal(paused.shedder.shedding, false);
    // Nor clients joining a cold process ten a sample, its compiler warming up: later each sample, but
    // fewer than 32 more in flight over two.
    const cold = fedShedder(100);
    feedInFlight(cold.feed, 5, () => ({ delayMs: 1, utilisation: 0.2, inFlight: 0 }));
    feedInFlight(cold.feed, 5, (step) => ({ delayMs: 12 + 4 * step, utilisation: 1, inFlight: 10 * (step + 1) }));
    assert.equal(cold.shedder.shedding, false);
    for (const s of [shedder, steady.shedder, paused.shedder, cold.shedder]) s.stop();
  }));

test('a queue building with no count of requests begun is cut by half', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(100);
    feedInFlight(feed, 100, () => ({ delayMs: 1, utilisation: 0.7, inFlight: 60 }));
    feedInFlight(
      feed,
      100,
      (step) => ({ delayMs: 8, utilisation: 1, inFlight: 60 + 60 * (step + 1) }),
      () => shedder.shedding,
    );
    assert.equal(shedder.share, 0.5);
    shedder.stop();
  }));

test('growth in flight after a long collection pause, or up to a fixed number of clients, is not a queue building', () =>
  onMockedTimers(() => {
    const { shedder, feed } = fedShedder(100);
    feedInFlight(feed, 100, () => ({ delayMs: 1, utilisation: 0.7, inFlight: 60 }));
    // What arrived during a 40 ms pause is in flight after it, and the loop runs busy and late while it
    // catches up: the same picture as an overload's start, for 200 ms after the pause.
    feedInFlight(feed, 10, (step) => ({
      delayMs: 8,
      utilisation: 1,
      inFlight: 60 + 60 * (step + 1),
      sincePauseMs: 10 + 18 * step,
    }));
    assert.equal(shedder.shedding, false);
    feedInFlight(feed, 100, () => ({ delayMs: 1, utilisation: 0.7, inFlight: 60 }));
    // A cold process under 50 clients that wait for their answers: from none to all 50 in flight at
    // once, the loop busy and late (its compiler still warming up), then no more.
    const cold = fedShedder(100);
    feedInFlight(cold.feed, 5, () => ({ delayMs: 1, utilisation: 0.2, inFlight: 0 }));
    feedInFlight(cold.feed, 40, (step) => ({ delayMs: 12, utilisation: 1, inFlight: Math.min(50, 10 * (step + 1)) }));
    assert.equal(cold.shedder.shedding, false);
    // Without the requests in flight in the sample (a sampler that cannot count them), nothing changes either.
    const blind = fedShedder(100);
    feedInFlight(blind.feed, 20, () => ({ delayMs: 8, utilisation: 1 }));
    assert.equal(blind.shedder.shedding, false);
    for (const s of [shedder, cold.shedder, blind.shedder]) s.stop();
  }));

test('long collection pauses one after another are timed from the first: a loop that collects that often is not excused for long', () => {
  const run = new PauseRun();
  assert.equal(run.sinceFirst(1_000), Number.POSITIVE_INFINITY);
  // Short pauses (scavenges of a few ms) are not counted at all.
  run.add(1_000, 5);
  assert.equal(run.sinceFirst(1_100), Number.POSITIVE_INFINITY);
  // One long pause: its backlog is excused for 200 ms after it.
  run.add(2_000, 94);
  assert.equal(run.sinceFirst(2_194), 100);
  // Long pauses every 70 ms from 5 s on: one run, timed from its first, so the excuse lapses 200 ms in.
  for (let at = 5_000; at <= 5_700; at += 70) run.add(at, 25);
  assert.equal(run.sinceFirst(5_725), 700);
  // Quiet for longer than 200 ms: the next long pause starts a run of its own.
  run.add(6_000, 30);
  assert.equal(run.sinceFirst(6_080), 50);
});

test('overload_loop_delay_ms 0 never sheds and samples nothing', () => {
  let sampled = 0;
  const shedder = new LoadShedder({
    thresholdMs: 0,
    sample: () => {
      sampled++;
      return { delayMs: 1000, utilisation: 1 };
    },
  });
  assert.equal(shedder.shedding, false);
  assert.equal(sampled, 0);
  shedder.stop();
});

test('while shedding, an API request gets a fast 503 overloaded with retry-after in its dialect; health is still served', async () => {
  let refuse = true;
  const shedder = { shedding: true, admit: () => !refuse };
  let dispatched = 0;
  const server = createGatewayServer({
    config: {
      clientHeaderTimeoutMs: 10_000,
      clientRequestTimeoutMs: 300_000,
      corsOrigins: [],
      maxConnections: 100,
      maxConnectionsPerAddress: 16,
    },
    metrics: { connectionsDropped: 0, contentType: 'text/plain', render: async () => '', unrouted: () => undefined },
    log: { error: () => undefined, warn: () => undefined, isLevelEnabled: () => false } as never,
    masker: { mask: (s: string) => s } as never,
    metricsAuthorized: null,
    router: new Router([
      endpoint({
        name: 'chat',
        template: '/v1/chat/completions',
        methods: ['POST'],
        dialect: 'openai',
        serve: async (_req, res) => {
          dispatched++;
          res.end('{}');
        },
      }),
      endpoint({
        name: 'messages',
        template: '/v1/messages',
        methods: ['POST'],
        dialect: 'anthropic',
        serve: async () => {},
      }),
      endpoint({
        name: 'healthz',
        template: '/healthz',
        methods: ['GET'],
        dialect: 'openai',
        own: 'healthz',
        serve: async () => {},
      }),
    ]),
    admin: null,
    ui: null,
    readiness: { draining: false, reasons: () => [] },
    shedder,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const openai = await post('/v1/chat/completions');
    assert.equal(openai.status, 503);
    assert.equal(openai.headers.get('retry-after'), '1');
    assert.equal(((await openai.json()) as { error: { code: string } }).error.code, 'overloaded');
    const anthropic = await post('/v1/messages', { 'anthropic-version': '2023-06-01' });
    assert.equal(anthropic.status, 503);
    assert.equal(
      ((await anthropic.json()) as { type: string; error: { type: string } }).error.type,
      'overloaded_error',
    );
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal(dispatched, 0);
    // The body is the dialect's error body a GatewayError renders, the request id in it where it has one.
    const again = await post('/v1/messages', { 'anthropic-version': '2023-06-01' });
    const id = again.headers.get('x-request-id') ?? '';
    assert.match(id, /^req_/);
    assert.equal(again.headers.get('request-id'), id);
    assert.equal(await again.text(), renderError('anthropic', new GatewayError('overloaded'), id));
    assert.equal(
      await (await post('/v1/chat/completions')).text(),
      renderError('openai', new GatewayError('overloaded'), ''),
    );
    // A request the shedder admits is served.
    refuse = false;
    assert.equal((await post('/v1/chat/completions')).status, 200);
    assert.equal(dispatched, 1);
    shedder.shedding = false;
    refuse = true;
    assert.equal((await post('/v1/chat/completions')).status, 200, 'not shedding: admit() is not asked');
    assert.equal(dispatched, 2);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
