// Warming a target until its compiler has settled, before any scenario is timed. A fresh Node proxy
// keeps optimising for tens of seconds under load (TurboFan on V8's helper threads: a profile of
// modelgate's helpers at one connection, two seconds after a warm-up, was nearly all compiler), and on
// two cores that work takes the core wrk and the mock need, which shows as a latency tail in whatever
// scenario runs first. The helpers' CPU is read from /proc each round; once it stops falling, what is
// left is the garbage collector's share of steady load.
import { warmUp } from './measure.ts';
import { helperCpuMicros, processTree } from './proc-stats.ts';
import type { RequestKind } from './requests.ts';
import type { Target } from './targets.ts';

export interface SettleOptions {
  /** One round warms every kind the target serves, this long in all. */
  roundMs: number;
  /** Warm at least this long, whatever the helpers show. */
  minMs: number;
  /** Give up after this long (the run says so). */
  maxMs: number;
  /**
   * Settled when two rounds running each kept at least this fraction of the helper CPU of the round
   * before (no longer falling); one such round can be noise.
   */
  plateau: number;
  /** Or when helpers take less than this share of one core. */
  quietShare: number;
}

export const SETTLE_FULL: SettleOptions = {
  roundMs: 2000,
  minMs: 10_000,
  maxMs: 40_000,
  plateau: 0.8,
  quietShare: 0.01,
};
export const SETTLE_QUICK: SettleOptions = { roundMs: 500, minMs: 0, maxMs: 2000, plateau: 0.8, quietShare: 0.01 };

export interface SettleRecord {
  rounds: number;
  ms: number;
  /** Helper threads' share of one core in the first and the last round. */
  firstShare: number;
  lastShare: number;
  settled: boolean;
}

export interface SettleProbe {
  /** Loads the target with one kind for `ms`. */
  warm(kind: RequestKind, ms: number): Promise<void>;
  /** Helper threads' CPU so far, µs. */
  helperMicros(): number;
  now(): number;
}

const WARMED_KINDS: readonly RequestKind[] = [
  'chat',
  'chat-stream',
  'messages-stream',
  'responses-stream',
  'chat-50kb',
];

export function probeFor(target: Target): SettleProbe {
  return {
    warm: (kind, ms) => warmUp(target.request(kind), ms),
    helperMicros: () => helperCpuMicros(processTree(target.child.pid)),
    now: () => performance.now(),
  };
}

/** Rounds of warm-up over every kind `kinds` holds until the helper threads' CPU stops falling. */
export async function settle(
  kinds: ReadonlySet<RequestKind>,
  options: SettleOptions,
  probe: SettleProbe,
): Promise<SettleRecord> {
  const warmed = WARMED_KINDS.filter((k) => kinds.has(k));
  const start = probe.now();
  const shares: number[] = [];
  for (;;) {
    const helpersBefore = probe.helperMicros();
    const roundStart = probe.now();
    for (const kind of warmed) await probe.warm(kind, options.roundMs / warmed.length);
    const elapsedMs = probe.now() - roundStart;
    const share = elapsedMs > 0 ? (probe.helperMicros() - helpersBefore) / (elapsedMs * 1000) : 0;
    shares.push(share);
    const n = shares.length;
    const quiet = share < options.quietShare;
    const flat =
      n >= 3 && shares[n - 1] >= shares[n - 2] * options.plateau && shares[n - 2] >= shares[n - 3] * options.plateau;
    const spent = probe.now() - start;
    if (spent < Math.min(options.minMs, options.maxMs)) continue;
    if (quiet || flat || spent >= options.maxMs) {
      return { rounds: shares.length, ms: spent, firstShare: shares[0], lastShare: share, settled: quiet || flat };
    }
  }
}

/** One line for the results file's notes; `before` names what the warm-up came before. */
export function settleNote(record: SettleRecord, before = 'the timed scenarios'): string {
  const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
  const how = record.settled ? 'settled' : 'still falling when the warm-up gave up';
  return `warmed ${(record.ms / 1000).toFixed(1)} s in ${record.rounds} round(s) before ${before}: helper threads ${pct(record.firstShare)} → ${pct(record.lastShare)} of a core (${how})`;
}

const CHAT_ONLY: ReadonlySet<RequestKind> = new Set(['chat']);

/** Settles a pass's own process over non-streamed chat, the one kind such passes time; the note for the log. */
export async function settleOnChat(target: Target, options: SettleOptions, before: string): Promise<string> {
  return settleNote(await settle(CHAT_ONLY, options, probeFor(target)), before);
}
