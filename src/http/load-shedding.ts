// Shedding on event-loop load, as Envoy's overload manager does: when more arrives than the loop can run,
// every request already admitted is slowed by every new one, so a share of new requests gets a fast 503
// in its dialect, sized so that the loop keeps up: admitted requests then keep their latency, and a
// refusal, which costs a fraction of a served request, waits for no backlog either.
//
// A loop that is busy all the time is not overloaded by that alone: a fixed number of clients sending
// their next request as soon as the last is answered (a load test, a batch job) keeps it busy while each
// request waits only for the few ahead of it. What overload adds is a queue, and a queue shows as
// lateness: the loop takes longer a turn, so a timer due every 10 ms runs late. So lateness gates every
// cut, and utilisation only sizes the cut once a queue forms.
//
// Three signals, read on a timer off the request path (a request reads one boolean, and while shedding
// counts itself, admitted or not):
// - how late the sampling timer runs, smoothed over about 200 ms: past half of `thresholdMs` (50 ms at
//   the default) a queue is forming. Clients that wait for their answers keep the loop this late only
//   when there are very many of them (50 connections sending 50 KB prompts to a process whose compiler
//   is still cold keep it 30 – 45 ms late, with single samples past 60);
// - the loop's utilisation (the share of wall time it was busy, smoothed over about half a second): with
//   a queue forming and the loop over HIGH_UTILISATION, the admitted share shrinks in proportion (by a
//   fixed step while the loop is saturated, since a utilisation of 1 does not say by how much);
// - two samples or more late past `thresholdMs` one after another, covering BACKLOG_THRESHOLDS times
//   `thresholdMs` of wall time (half a second at the default): a backlog, cut at once, at least by half
//   and more the later the loop runs. One late sample alone (a garbage-collection pause), or a shorter
//   stretch (a burst of new requests the loop clears in a few hundred milliseconds), is not.
// Both smoothings weigh a sample by the wall time it covers, not per sample: a late loop samples rarely,
// and each of its samples stands for that much more time.
// The share grows back while there is no queue or the loop has idle time (under TARGET_UTILISATION);
// between the two it holds.
//
// A standing queue: the loop over HIGH_UTILISATION and late past a quarter of `thresholdMs` (smoothed)
// for as long as a backlog takes. A client whose connections are all busy (a service with a pool)
// queues the rest of an overload in its own pool, where the loop cannot see it: the loop then runs at
// full throughput only as late as the requests it holds make it (900 connections: 40 – 80 ms), under the
// queue gate, while the client's queue grows without end. Once a standing queue is seen, shedding holds
// the loop under HOLD_MS late instead: cut while it runs later (by so much per SAMPLE_MS of wall time,
// since a late loop samples rarely), grown back slowly while it does not and is under HOLD_BUSY, held
// between that and saturation, and cut while saturated even on time, so admitted requests keep their
// latency, refusals wait for nothing, and the loop has the spare time to refuse the client's backlog and
// to drain what a stall (a collection pause, another process) leaves: a share grown until the loop runs
// late finds the edge of saturation, where each such stall becomes a backlog of a few hundred
// milliseconds. It ends when the share is whole again (it grows back as fast as ever
// once the loop is mostly idle, under HOLD_IDLE), when the loop has been on time and mostly idle for
// RATE_MEMORY_MS, or when new requests come no faster than ENDED_RATIO times the rate the loop admitted
// while keeping up. The share then grows back as without a standing queue, a hundredth a sample, not
// whole at once: an overload that is not over after all shows as a queue building before the loop is
// flooded.
// A queue building: the loop busy and late past the hold while the requests in flight grow BUILD_RATIO
// times (and by BUILD_MIN_GROWTH at least) within BUILD_WINDOW_MS, two samples running; or, sooner when
// few were in flight before, the loop saturated and each of RISING_SAMPLES samples running later than the
// one before (and past twice the hold) with more in flight than it, half BUILD_MIN_GROWTH more over them.
// A fixed number of clients that wait for their answers keep the loop equally late once they are all in
// flight, and a collection pause leaves it late at once and then less so. Either is the start
// of an overload, seen in a tenth of a second where the smoothed signals above take most of a second, and
// during a standing queue it is the hold admitting more than the loop runs: either way the share is cut
// at once, to what the loop finished while the queue built (by half at least), and the loop is held as
// for a standing queue. A collection pause makes the same picture (what arrived during the pause is in
// flight after it), so growth within GC_QUIET_MS of a pause of GC_PAUSE_MS or more is not a queue. Long
// pauses one after another (each within GC_QUIET_MS of the last) count from the first: a loop that
// collects that often holds too many requests to keep up, and that queue is counted once the first
// pause's own backlog has had its time. Nor can a fixed number of clients that wait for their answers
// grow the requests in flight by BUILD_MIN_GROWTH once they are all in flight.
//
// Clients that wait for each answer keep a loop a quarter of the default threshold late only when there
// are very many of them for what each request costs; each of their requests then waits that long too,
// and shedding some of them is what the threshold asks for.
//
// Admission within the share is by a deterministic credit, not chance: of every 1/share requests one
// is admitted, so the refused are spread evenly over time.
import { performance, PerformanceObserver } from 'node:perf_hooks';

/** How often the loop is looked at. */
const SAMPLE_MS = 10;
/** Smoothed utilisation past which the admitted share shrinks while a queue forms, and under which it grows back (shedding ends at 1). */
const HIGH_UTILISATION = 0.9;
const TARGET_UTILISATION = 0.85;
/**
 * Memory of the smoothed utilisation, ms: a burst the loop clears in a few hundred milliseconds is served,
 * not shed; a sustained overload is.
 */
const UTILISATION_MEMORY_MS = 500;
/** Memory of the smoothed lateness, ms. */
const DELAY_MEMORY_MS = 200;
/** How long, in multiples of `thresholdMs`, the loop runs late past it before that is a backlog. */
const BACKLOG_THRESHOLDS = 5;
/** Smoothed lateness, as a share of `thresholdMs`, past which a queue is forming. */
const QUEUE_SHARE = 0.5;
/**
 * Smoothed lateness, as a share of `thresholdMs`, that with a busy loop for as long as a backlog takes
 * (BACKLOG_THRESHOLDS times `thresholdMs`: a burst the loop clears sooner is served) is a standing queue.
 */
const STANDING_SHARE = 0.25;
/** The lateness, ms, shedding holds a standing queue's loop under (a quarter of `thresholdMs` when that is less). */
const HOLD_MS = 5;
/**
 * While a standing queue is shed: the cut per SAMPLE_MS of wall time while the loop runs later than twice
 * the hold, the cut per SAMPLE_MS while later than the hold, and the growth a sample otherwise (at most a
 * tenth a second, less the nearer the loop runs to the hold: admissions come back slowly enough that its
 * lateness shows before they flood it again).
 */
const HOLD_CUT_FAR = 0.95;
const HOLD_CUT = 0.98;
const HOLD_GROWTH = 0.001;
/** The cut per SAMPLE_MS of wall time while a held loop is on time but saturated (SATURATED, smoothed and in the sample). */
const HEADROOM_CUT = 0.98;
/** Smoothed utilisation a held loop's share grows under (and holds over): room to drain what a stall leaves. */
const HOLD_BUSY = 0.8;
/**
 * Utilisation (smoothed, or of the sample alone; both, with BUILD_MIN_GROWTH requests or more in flight)
 * under which a held loop is mostly idle: the share then grows back as fast as without a standing queue.
 */
const HOLD_IDLE = 0.5;
/**
 * A standing queue ends when new requests come no faster than this many times the admitted rate the loop
 * kept up with. No more than that rate itself: the arrivals the loop counts are no more than it reads, and
 * the rate it kept up with is the highest it held, so at any more a held overload of a little under twice
 * what the loop serves ended every few seconds, and the whole of it then flooded the loop again.
 */
const ENDED_RATIO = 1;
/** Memory of the smoothed rates of new and admitted requests, ms; a standing queue lasts this long before it can end on them. */
const RATE_MEMORY_MS = 200;
/** A sample at least this busy says the loop is saturated, not by how much: the share shrinks by SATURATED_CUT. */
const SATURATED = 0.98;
const SATURATED_CUT = 0.7;
/**
 * A queue building (see the top of the file): growth of the requests in flight over a window; the least
 * cut it makes, and the share of what the loop finished that the cut admits (the rest of its time drains
 * the queue).
 */
const BUILD_RATIO = 1.5;
const BUILD_MIN_GROWTH = 64;
const BUILD_WINDOW_MS = 100;
const BUILD_CUT = 0.5;
/**
 * A queue building seen as lateness: this many samples one after another saturated (SATURATED), later
 * than the sample before and than twice the hold, with more requests in flight than the sample before,
 * and half of BUILD_MIN_GROWTH more over those samples (more than a few clients joining a cold process).
 */
const RISING_SAMPLES = 2;
const DRAIN = 0.8;
/** A collection pause this long or longer, and how long after it growth in flight is its backlog. */
const GC_PAUSE_MS = 20;
const GC_QUIET_MS = 200;
/** The admitted share never goes under this: some requests keep being served whatever the load. */
const MIN_SHARE = 0.02;
/** The most the share shrinks in one sample on utilisation alone otherwise, and what it grows back by in one (1 a second). */
const MAX_CUT = 0.85;
const GROWTH = 0.01;

/** The loop since the previous sample. */
export interface LoopSample {
  /** How late the sampling timer ran, ms. */
  delayMs: number;
  /** Share of the interval the loop was busy (0..1). */
  utilisation: number;
  /** Requests in flight now, and begun since start (absent: no queue-building signal). */
  inFlight?: number;
  started?: number;
  /**
   * Milliseconds since the first of the latest run of collection pauses of GC_PAUSE_MS or more ended
   * (PauseRun; absent: none seen).
   */
  sincePauseMs?: number;
}

/** Requests in flight now and begun since start, as the pipeline counts them (Metrics). */
export interface RequestCounts {
  readonly inFlight: number;
  readonly started: number;
}

export interface LoadShedderOptions {
  /** Event-loop delay (ms) that, on two samples running and for five times as long, halves the admitted share (half of it, smoothed, a queue forming); 0 = never shed. */
  thresholdMs: number;
  /** The loop since the last call; node:perf_hooks' event-loop utilisation and timer lateness when not given (tests inject one). */
  sample?: () => LoopSample;
  /** Read by the default sample: the queue-building signal. */
  requests?: RequestCounts;
  sampleMs?: number;
}

export class LoadShedder {
  /** True while some new requests are refused; then `admit()` says which. */
  shedding = false;
  /** The share of new requests admitted (1 when not shedding). */
  share = 1;
  /** Smoothed loop utilisation. */
  utilisation = 0;
  /** Smoothed lateness of the sampling timer, ms. */
  delayMs = 0;
  #credit = 0;
  /** Samples late past the threshold one after another, and the wall time they cover, ms. */
  #lateSamples = 0;
  #lateMs = 0;
  /** True while a standing queue is shed (see the top of the file). */
  standing = false;
  /** Wall time the loop has been busy and late past STANDING_SHARE without a break, and the standing queue has lasted (ms). */
  #busyLateMs = 0;
  #standingMs = 0;
  /** New and admitted requests since the last sample (counted by `admit()`, so while shedding), and their smoothed rates a ms. */
  #arrivals = 0;
  #admitted = 0;
  #arrivalRate = 0;
  #admittedRate = 0;
  /** The highest smoothed admitted rate of this standing queue at which the loop kept under the hold. */
  #keptUpRate = 0;
  /** Wall time a held loop has been on time and mostly idle without a break, ms. */
  #idleMs = 0;
  /** The shedder's clock (wall time its samples covered, ms), and the requests in flight and begun by it, over the last BUILD_WINDOW_MS. */
  #clockMs = 0;
  #seen: Array<{ atMs: number; inFlight: number; started: number }> = [];
  /** Samples one after another that saw a queue building, by growth in flight and by rising lateness. */
  #buildingSamples = 0;
  #risingSamples = 0;
  /** The last sample's lateness, ms. */
  #lastDelayMs = 0;
  readonly #thresholdMs: number;
  /** The lateness a standing queue's loop is held under: HOLD_MS, or the standing gate when that is less. */
  readonly #holdMs: number;
  readonly #sampleMs: number;
  readonly #timer: NodeJS.Timeout | null;
  readonly #pauses: PerformanceObserver | null = null;

  constructor(o: LoadShedderOptions) {
    this.#thresholdMs = o.thresholdMs;
    this.#holdMs = Math.min(HOLD_MS, o.thresholdMs * STANDING_SHARE);
    this.#sampleMs = o.sampleMs ?? SAMPLE_MS;
    if (o.thresholdMs <= 0) {
      this.#timer = null;
      return;
    }
    let sample = o.sample;
    if (sample === undefined) {
      const pauses = longPauses();
      this.#pauses = pauses.observer;
      sample = loopSampler(this.#sampleMs, o.requests ?? null, pauses.sinceMs);
    }
    const next = sample;
    this.#timer = setInterval(() => this.observe(next()), this.#sampleMs);
    this.#timer.unref();
  }

  /** While shedding: whether this new request is admitted (one in every 1/share). */
  admit(): boolean {
    this.#arrivals++;
    this.#credit += this.share;
    if (this.#credit < 1) return false;
    this.#credit -= 1;
    this.#admitted++;
    return true;
  }

  /** One sample of the loop: the admitted share follows it (see the top of the file). */
  observe(s: LoopSample): void {
    const coveredMs = this.#sampleMs + s.delayMs;
    this.utilisation = smoothed(this.utilisation, s.utilisation, coveredMs, UTILISATION_MEMORY_MS);
    this.delayMs = smoothed(this.delayMs, s.delayMs, coveredMs, DELAY_MEMORY_MS);
    const late = s.delayMs > this.#thresholdMs;
    this.#lateSamples = late ? this.#lateSamples + 1 : 0;
    this.#lateMs = late ? this.#lateMs + coveredMs : 0;
    const queue = this.delayMs > this.#thresholdMs * QUEUE_SHARE;
    const buildCut = this.#queueBuilding(s, coveredMs);
    const held = this.#standingQueue(coveredMs, s.utilisation, buildCut < 1);
    let share = this.share;
    if (this.#lateSamples >= 2 && this.#lateMs >= this.#thresholdMs * BACKLOG_THRESHOLDS)
      share *= Math.min(0.5, this.#thresholdMs / s.delayMs);
    else if (buildCut < 1) share *= buildCut;
    else if (queue && this.utilisation > HIGH_UTILISATION)
      share *= s.utilisation >= SATURATED ? SATURATED_CUT : Math.max(MAX_CUT, TARGET_UTILISATION / this.utilisation);
    else if (held) {
      // Late as smoothed and in this sample both: after a stall the smoothed lateness takes a second to
      // fall, while the loop is on time again at once.
      const holdMs = this.#holdMs;
      const lateMs = Math.min(this.delayMs, s.delayMs);
      if (lateMs > holdMs) this.#idleMs = 0;
      // The cuts are per SAMPLE_MS of wall time the sample covers: a late loop samples rarely, and a cut
      // per sample would shrink the share slowest when it is furthest behind.
      const samples = coveredMs / this.#sampleMs;
      if (lateMs > 2 * holdMs) share *= HOLD_CUT_FAR ** samples;
      else if (lateMs > holdMs) share *= HOLD_CUT ** samples;
      else if (Math.min(this.utilisation, s.utilisation) >= SATURATED) {
        // On time but busy throughout: nothing to spare for the next collection pause, whose arrivals
        // then queue behind it. The share comes down until the loop has idle time again.
        this.#idleMs = 0;
        share *= HEADROOM_CUT ** samples;
      } else {
        this.#keptUpRate = Math.max(this.#keptUpRate, this.#admittedRate);
        // On time and mostly idle for as long as the rates take to tell: the overload is over.
        this.#idleMs = this.utilisation < HOLD_IDLE ? this.#idleMs + coveredMs : 0;
        if (this.#idleMs >= RATE_MEMORY_MS) this.standing = false;
        // With a backlog of its own in flight, one idle sample is only a gap between bursts: growing
        // fast on it overshoots every few seconds. With few in flight (a client that sends again as
        // soon as it is answered, a 503 included, keeps the smoothed utilisation up), it is idle time.
        const idle =
          (s.inFlight ?? 0) < BUILD_MIN_GROWTH
            ? Math.min(this.utilisation, s.utilisation)
            : Math.max(this.utilisation, s.utilisation);
        // Busier than HOLD_BUSY (smoothed) it holds: a share grown on lateness alone finds the edge of
        // saturation, where the next stall (a collection, another process) leaves a backlog it cannot drain.
        if (idle < HOLD_IDLE) share += GROWTH;
        else if (this.utilisation < HOLD_BUSY) share += HOLD_GROWTH * Math.max(0, 1 - this.delayMs / holdMs);
      }
    } else if (this.utilisation < TARGET_UTILISATION || !queue) share += GROWTH;
    this.share = Math.min(1, Math.max(MIN_SHARE, share));
    this.shedding = this.share < 1;
    if (!this.shedding) {
      this.#credit = 0;
      this.standing = false;
    }
  }

  /**
   * What a queue building (see the top of the file) cuts the share by, or 1 when this sample and the one
   * before did not see one. Over those two samples, requests begun less the growth in flight is what the
   * loop finished: the share is cut to DRAIN of that over what began, and by BUILD_CUT at least. Once
   * acted on, the window starts again, so the next cut needs growth of its own.
   */
  #queueBuilding(s: LoopSample, coveredMs: number): number {
    this.#clockMs += coveredMs;
    if (s.inFlight === undefined) return 1;
    const seen = this.#seen;
    seen.push({ atMs: this.#clockMs, inFlight: s.inFlight, started: s.started ?? 0 });
    // The newest entry at least a window old is the one to compare with; older ones are no longer needed.
    let from = -1;
    for (let i = 0; i < seen.length && seen[i].atMs <= this.#clockMs - BUILD_WINDOW_MS; i++) from = i;
    if (from > 0) seen.splice(0, from);
    const before = from === -1 ? null : seen[0];
    const previous = seen.length >= 2 ? seen[seen.length - 2].inFlight : s.inFlight;
    // Not within GC_QUIET_MS of a long collection pause, whose backlog looks the same.
    const quiet = (s.sincePauseMs ?? Number.POSITIVE_INFINITY) > GC_QUIET_MS;
    const growing =
      before !== null &&
      s.inFlight >= BUILD_RATIO * before.inFlight &&
      s.inFlight - before.inFlight >= BUILD_MIN_GROWTH &&
      s.inFlight > previous &&
      s.utilisation > HIGH_UTILISATION &&
      s.delayMs > this.#holdMs &&
      quiet;
    const rising =
      s.inFlight > previous &&
      s.delayMs > this.#lastDelayMs &&
      s.delayMs > 2 * this.#holdMs &&
      s.utilisation >= SATURATED &&
      quiet;
    this.#lastDelayMs = s.delayMs;
    this.#risingSamples = rising ? this.#risingSamples + 1 : 0;
    this.#buildingSamples = growing ? this.#buildingSamples + 1 : 0;
    const risen =
      this.#risingSamples >= RISING_SAMPLES &&
      s.inFlight - seen[Math.max(0, seen.length - 1 - RISING_SAMPLES)].inFlight >= BUILD_MIN_GROWTH / 2;
    if ((this.#buildingSamples < 2 || before === null) && !risen) return 1;
    this.#buildingSamples = 0;
    this.#risingSamples = 0;
    // The rates over the two samples that saw it: the window may reach back to before it began.
    const from2 = seen[Math.max(0, seen.length - 3)];
    const begun = (s.started ?? 0) - from2.started;
    const finished = begun - (s.inFlight - from2.inFlight);
    seen.splice(0, seen.length - 1);
    return begun > 0 && finished > 0 ? Math.min(BUILD_CUT, (DRAIN * finished) / begun) : BUILD_CUT;
  }

  /**
   * Whether the loop is held for a standing queue after this sample (it starts or lasts); one that ends
   * here ends with the share where it is, which then grows back as without one.
   */
  #standingQueue(coveredMs: number, utilisation: number, building: boolean): boolean {
    // The sample's own utilisation: the smoothed one lags by half a second, and the time it must last
    // already tells a burst from a standing queue.
    const busyAndLate = this.delayMs > this.#thresholdMs * STANDING_SHARE && utilisation > HIGH_UTILISATION;
    this.#busyLateMs = busyAndLate ? this.#busyLateMs + coveredMs : 0;
    this.#arrivalRate = smoothed(this.#arrivalRate, this.#arrivals / coveredMs, coveredMs, RATE_MEMORY_MS);
    this.#admittedRate = smoothed(this.#admittedRate, this.#admitted / coveredMs, coveredMs, RATE_MEMORY_MS);
    this.#arrivals = 0;
    this.#admitted = 0;
    if (!this.standing) {
      if (!building && this.#busyLateMs < this.#thresholdMs * BACKLOG_THRESHOLDS) return false;
      this.standing = true;
      this.#standingMs = 0;
      this.#keptUpRate = 0;
      this.#idleMs = 0;
      this.#arrivalRate = 0;
      this.#admittedRate = 0;
      return true;
    }
    this.#standingMs += coveredMs;
    const over =
      this.#standingMs >= RATE_MEMORY_MS && this.#keptUpRate > 0 && this.#arrivalRate <= ENDED_RATIO * this.#keptUpRate;
    if (over) this.standing = false;
    return !over;
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#pauses?.disconnect();
  }
}

/** `current` moved towards `sample` by the weight of `coveredMs` of wall time in a memory of `memoryMs`. */
function smoothed(current: number, sample: number, coveredMs: number, memoryMs: number): number {
  return current + (1 - Math.exp(-coveredMs / memoryMs)) * (sample - current);
}

/**
 * Long collection pauses (GC_PAUSE_MS or more) by when they ended: a pause within GC_QUIET_MS of the one
 * before belongs to its run, and the run is timed from its first pause.
 */
export class PauseRun {
  #firstEnd = Number.NEGATIVE_INFINITY;
  #lastEnd = Number.NEGATIVE_INFINITY;

  add(startMs: number, durationMs: number): void {
    if (durationMs < GC_PAUSE_MS) return;
    const end = startMs + durationMs;
    if (end - this.#lastEnd > GC_QUIET_MS) this.#firstEnd = end;
    this.#lastEnd = Math.max(this.#lastEnd, end);
  }

  /** Milliseconds since the first pause of the latest run ended. */
  sinceFirst(nowMs: number): number {
    return nowMs - this.#firstEnd;
  }
}

/** The collection pauses V8 reports, as a PauseRun. */
function longPauses(): { observer: PerformanceObserver; sinceMs: () => number } {
  const run = new PauseRun();
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) run.add(e.startTime, e.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  return { observer, sinceMs: () => run.sinceFirst(performance.now()) };
}

/**
 * The loop's utilisation since the previous call and how late this call runs after `intervalMs`, with the
 * requests in flight and begun and the time since a long collection pause.
 */
function loopSampler(intervalMs: number, requests: RequestCounts | null, sincePauseMs: () => number): () => LoopSample {
  let last = performance.eventLoopUtilization();
  let lastAt = performance.now();
  return () => {
    const now = performance.now();
    const current = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(current, last).utilization;
    const delayMs = Math.max(0, now - lastAt - intervalMs);
    last = current;
    lastAt = now;
    return {
      delayMs,
      utilisation,
      inFlight: requests?.inFlight,
      started: requests?.started,
      sincePauseMs: sincePauseMs(),
    };
  };
}
