// The instruction pass as a markdown table: instructions per request for modelgate beside the bare
// proxy, their ratio, and per streamed event what a stream costs beyond a non-streamed answer. The
// figures leave out what V8 spent optimising code in the counted stretch (lib/callgrind.ts): a cost of
// warming up, not of serving, and the part of a count that moved most between two passes of one build.
// The counts with it stay in the table's last columns.
import type { InstructionCell } from './instruction-pass.ts';
import type { RequestKind } from './requests.ts';
import { STREAM_EVENTS } from './scenarios.ts';
import type { InstructionPlan } from './scenarios.ts';

const TITLES: Record<string, string> = {
  chat: 'Non-streaming chat',
  'chat-stream': `Streaming chat (${STREAM_EVENTS} events)`,
  'messages-stream': `Streaming /v1/messages translated from an OpenAI-style upstream (${STREAM_EVENTS} events)`,
  'responses-stream': `Streaming /v1/responses translated from an OpenAI-style upstream (${STREAM_EVENTS} events)`,
};

function ratio(a: number, b: number): string {
  return Number.isFinite(a / b) ? `${(a / b).toFixed(2)} ×` : '—';
}

function count(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}

/**
 * Instructions per request of `target` for `kind` once its code is optimised (`withCompiling`: as
 * counted, V8's optimising compilers included), NaN when not counted.
 */
export function perRequest(
  cells: readonly InstructionCell[],
  target: InstructionCell['target'],
  kind: RequestKind,
  withCompiling = false,
): number {
  const c = cells.find((x) => x.target === target && x.kind === kind);
  if (c === undefined || c.requests === 0) return Number.NaN;
  return (withCompiling ? c.instructions : c.instructions - (c.compiling ?? 0)) / c.requests;
}

/** modelgate / bare proxy instructions per non-streamed request (the headline's repeatable CPU ratio). */
export function chatInstructionRatio(cells: readonly InstructionCell[]): number {
  return perRequest(cells, 'modelgate', 'chat') / perRequest(cells, 'bare-proxy', 'chat');
}

export function instructionTable(cells: readonly InstructionCell[], plan: InstructionPlan | null): string[] {
  if (cells.length === 0 || plan === null) return [];
  const kinds = [...new Set(cells.map((c) => c.kind))];
  const rows = kinds.map((kind) => {
    const mg = perRequest(cells, 'modelgate', kind);
    const bare = perRequest(cells, 'bare-proxy', kind);
    const mgRaw = perRequest(cells, 'modelgate', kind, true);
    const bareRaw = perRequest(cells, 'bare-proxy', kind, true);
    return `| ${TITLES[kind] ?? kind} | ${count(mg)} | ${count(bare)} | ${ratio(mg, bare)} | ${count(mgRaw)} | ${count(bareRaw)} |`;
  });
  // A stream's events beyond what a non-streamed answer costs: the per-event view of the same counts.
  const perEvent = (target: InstructionCell['target'], kind: RequestKind): number =>
    (perRequest(cells, target, kind) - perRequest(cells, target, 'chat')) / STREAM_EVENTS;
  const eventRows = kinds
    .filter((k) => k !== 'chat')
    .map((kind) => {
      const mg = perEvent('modelgate', kind);
      const bare = perEvent('bare-proxy', kind);
      return `| ${TITLES[kind] ?? kind}, per event beyond a non-streamed answer | ${count(mg)} | ${count(bare)} | ${ratio(mg, bare)} | | |`;
    });
  const errors = cells.reduce((n, c) => n + c.errors, 0);
  const n = (v: number): string => v.toLocaleString('en-US');
  return [
    '### Instructions per request under callgrind (fresh processes, one request at a time)',
    '',
    '| scenario | modelgate | bare proxy | modelgate / bare | modelgate, V8 compiling too | bare proxy, V8 compiling too |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    ...eventRows,
    '',
    `Counted: ${n(plan.chat.count)} non-streamed requests after ${n(plan.chat.warmup)} warm-up ones, and ${n(plan.streams.count)} streams of each kind after ${n(plan.streams.warmup)} unpaced ones, from a mock sending a counted stream's events ${plan.pacingMs} ms apart (each its own read); every thread of the process, GC included; the first columns leave out what V8's optimising compilers ran in the counted stretch (the last two keep it); ${errors} errors.`,
    '',
  ];
}
