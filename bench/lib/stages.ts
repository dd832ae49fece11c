// Where a Node proxy's time goes for one stream at a time, from moments every Node proxy here shares:
// the request's start (node:http's diagnostics channel), the upstream request written and the
// upstream's response headers (undici's channels), and the proxy's first write to the client. The
// recorder (bench/stage-timer.ts) appends [moment, hrtime ns] pairs; this turns them into durations.
import type { RequestKind } from './requests.ts';
import { percentile } from './stats.ts';
import type { TargetName } from './targets.ts';

export const REQUEST_START = 0;
export const UPSTREAM_WRITTEN = 1;
export const UPSTREAM_HEADERS = 2;
export const CLIENT_WRITE = 3;

export const STAGE_NAMES = [
  'request → upstream request written',
  'upstream request written → upstream headers',
  'upstream headers → first write to the client',
  'request → first write to the client',
] as const;

export type StageName = (typeof STAGE_NAMES)[number];

export interface StageStat {
  name: StageName;
  p50Us: number;
  p90Us: number;
  /** Where the 1-connection tail lives: the stage whose p99 grows is the one to look at. */
  p99Us: number;
}

/** What the stage pass sends one at a time: a stream (first byte) and a non-streamed chat (whole answer). */
export const STAGE_KINDS = ['chat-stream', 'chat'] as const satisfies readonly RequestKind[];
export type StageKind = (typeof STAGE_KINDS)[number];

/** Per request kind, each target's summaries, one per repetition. */
export type StageResults = Map<StageKind, Map<TargetName, StageSummary[]>>;

export interface StageSummary {
  /** Which dump of the recorder this is (the harness waits for the one it asked for). */
  seq: number;
  /** Requests whose four moments were all seen in order. */
  requests: number;
  stages: StageStat[];
}

/**
 * Durations in µs per stage. `events` is flat: moment, time in ns, moment, time, … Requests must run
 * one at a time: a request start before the previous request's first client write drops that request,
 * and only the first of each later moment counts (a stream writes to the client many times).
 */
export function stageDurations(events: readonly number[]): Record<StageName, number[]> {
  const out = Object.fromEntries(STAGE_NAMES.map((n) => [n, [] as number[]])) as Record<StageName, number[]>;
  let start = -1;
  let written = -1;
  let headers = -1;
  for (let i = 0; i + 1 < events.length; i += 2) {
    const moment = events[i];
    const t = events[i + 1];
    if (moment === REQUEST_START) {
      start = t;
      written = -1;
      headers = -1;
    } else if (moment === UPSTREAM_WRITTEN && start >= 0 && written < 0) {
      written = t;
    } else if (moment === UPSTREAM_HEADERS && written >= 0 && headers < 0) {
      headers = t;
    } else if (moment === CLIENT_WRITE && headers >= 0) {
      out[STAGE_NAMES[0]].push((written - start) / 1000);
      out[STAGE_NAMES[1]].push((headers - written) / 1000);
      out[STAGE_NAMES[2]].push((t - headers) / 1000);
      out[STAGE_NAMES[3]].push((t - start) / 1000);
      start = -1;
      written = -1;
      headers = -1;
    }
  }
  return out;
}

export function summarizeStages(events: readonly number[], seq: number): StageSummary {
  const durations = stageDurations(events);
  return {
    seq,
    requests: durations[STAGE_NAMES[3]].length,
    stages: STAGE_NAMES.map((name) => ({ name, p50Us: percentile(durations[name], 50), p90Us: percentile(durations[name], 90), p99Us: percentile(durations[name], 99) })),
  };
}
