// What the benchmark measures and how long, in full and quick mode.
import type { RequestKind } from './requests.ts';
import type { TargetName } from './targets.ts';

export interface LoadScenario {
  id: string;
  title: string;
  kind: RequestKind;
  connections: number;
  /** Upstream SSE data events per response (role + content + finish), for CPU per event. */
  eventsPerResponse: number | undefined;
  /** Targets measured; undefined = every target that serves the kind. */
  only: TargetName[] | undefined;
  quick: boolean;
  /**
   * The mock's spacing of a stream's events for this scenario, ms; undefined: one event per event-loop
   * turn (the throughput view: under load several events share a read). Spaced events each wake the
   * proxy and come in a read of their own, as a model's tokens do.
   */
  pacingMs?: number;
  /**
   * A target that serves another kind in this scenario, alternated with the rest: the translated
   * scenario runs the bare proxy on the same upstream stream passed through, so modelgate's translation
   * is judged against a reference measured in the same rounds rather than minutes apart.
   */
  kindFor?: Partial<Record<TargetName, RequestKind>>;
}

/** The request kind `target` is loaded with in `scenario`. */
export function kindOf(scenario: LoadScenario, target: TargetName): RequestKind {
  return scenario.kindFor?.[target] ?? scenario.kind;
}

/** The instruction pass: requests before counting and requests counted, per kind; events' spacing. */
export interface InstructionPlan {
  chat: { warmup: number; count: number };
  streams: { warmup: number; count: number };
  pacingMs: number;
}

export interface Timing {
  reps: number;
  durationS: number;
  warmupMs: number;
  ttfbCount: number;
  holdStreams: number;
  /** Cheap requests timed before and during the hold. */
  probeCount: number;
  /** Requests per repetition of the one-at-a-time latency client. */
  latencyCount: number;
  /** Upper bound on one target's TTFB run, ms (Portkey takes ~30 ms a stream). */
  ttfbMaxMs: number;
  /** How long the hold waits for every stream's first byte before measuring what did start. */
  holdReadyMs: number;
  /** Targets held open streams are measured on (bare-proxy is the reference). */
  holdTargets: TargetName[];
  /** The instruction pass (lib/instruction-pass.ts); null: not run. */
  instructions: InstructionPlan | null;
}

export const CHUNKS = 50;
export const STREAM_EVENTS = CHUNKS + 2;
/** Event spacing of the paced streaming scenario, ms. */
export const PACED_MS = 3;

export const LOAD_SCENARIOS: LoadScenario[] = [
  {
    id: 'chat-c1',
    title: 'Non-streaming chat, 1 connection',
    kind: 'chat',
    connections: 1,
    eventsPerResponse: undefined,
    only: undefined,
    quick: true,
  },
  {
    id: 'chat-c50',
    title: 'Non-streaming chat, 50 connections',
    kind: 'chat',
    connections: 50,
    eventsPerResponse: undefined,
    only: undefined,
    quick: true,
  },
  {
    id: 'stream-c1',
    title: `Streaming chat (${CHUNKS} chunks), 1 connection`,
    kind: 'chat-stream',
    connections: 1,
    eventsPerResponse: STREAM_EVENTS,
    only: undefined,
    quick: false,
  },
  {
    id: 'stream-c50',
    title: `Streaming chat (${CHUNKS} chunks), 50 connections`,
    kind: 'chat-stream',
    connections: 50,
    eventsPerResponse: STREAM_EVENTS,
    only: undefined,
    quick: true,
  },
  {
    id: 'stream-paced-c20',
    title: `Streaming chat (${CHUNKS} chunks), events ${PACED_MS} ms apart, 20 connections`,
    kind: 'chat-stream',
    connections: 20,
    eventsPerResponse: STREAM_EVENTS,
    only: undefined,
    quick: false,
    pacingMs: PACED_MS,
  },
  {
    id: 'translated-c50',
    title: `Streaming /v1/messages translated from an OpenAI-style upstream (${CHUNKS} chunks), 50 connections`,
    kind: 'messages-stream',
    connections: 50,
    eventsPerResponse: STREAM_EVENTS,
    // claude-code-router is the peer on this route: what Claude Code users run to reach other models.
    only: ['modelgate', 'bare-proxy', 'ccr'],
    kindFor: { 'bare-proxy': 'chat-stream' },
    quick: true,
  },
  {
    id: 'translated-responses-c50',
    title: `Streaming /v1/responses translated from an OpenAI-style upstream (${CHUNKS} chunks), 50 connections`,
    kind: 'responses-stream',
    connections: 50,
    eventsPerResponse: STREAM_EVENTS,
    only: ['modelgate', 'bare-proxy'],
    kindFor: { 'bare-proxy': 'chat-stream' },
    quick: false,
  },
  {
    id: 'big-c50',
    title: 'Non-streaming chat with a 50 KB prompt, 50 connections',
    kind: 'chat-50kb',
    connections: 50,
    eventsPerResponse: undefined,
    only: undefined,
    quick: true,
  },
];

export const FULL: Timing = {
  reps: 9,
  durationS: 3,
  warmupMs: 2000,
  ttfbCount: 1000,
  latencyCount: 5000,
  holdStreams: 1000,
  probeCount: 300,
  ttfbMaxMs: 20_000,
  holdReadyMs: 15_000,
  holdTargets: ['modelgate', 'bare-proxy'],
  instructions: { chat: { warmup: 2000, count: 2000 }, streams: { warmup: 1000, count: 200 }, pacingMs: 3 },
};
export const QUICK: Timing = {
  reps: 1,
  durationS: 1,
  warmupMs: 300,
  ttfbCount: 200,
  latencyCount: 1000,
  holdStreams: 1000,
  probeCount: 100,
  ttfbMaxMs: 1000,
  holdReadyMs: 6000,
  holdTargets: ['modelgate'],
  instructions: null,
};
