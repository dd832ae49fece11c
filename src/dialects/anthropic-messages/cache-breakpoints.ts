// Anthropic takes at most four prompt-cache breakpoints a request and refuses a fifth with a 400. A caller
// of another dialect may mark more (OpenAI-style clients put `cache_control` on every message part they
// like): the last four are kept — a later breakpoint caches a longer prefix, tools then system then
// messages — and the earlier ones dropped and named in `x-modelgate-adjusted`.
import type { MessagesRequest } from './wire.ts';

/** Anthropic's limit of `cache_control` breakpoints in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

type Marked = { cache_control?: unknown };

/** Removes all but the last four breakpoints of `out`, in the order Anthropic builds its prefix. */
export function capCacheBreakpoints(out: MessagesRequest, adjustments: string[]): void {
  const marked: Marked[] = [];
  const look = (v: unknown): void => {
    if (typeof v === 'object' && v !== null && (v as Marked).cache_control != null) marked.push(v as Marked);
  };
  for (const tool of out.tools ?? []) look(tool);
  if (Array.isArray(out.system)) for (const block of out.system) look(block);
  for (const m of out.messages) if (Array.isArray(m.content)) for (const block of m.content) look(block);
  look(out);
  const extra = marked.length - MAX_CACHE_BREAKPOINTS;
  if (extra <= 0) return;
  for (let i = 0; i < extra; i++) delete marked[i].cache_control;
  adjustments.push(
    `cache_control dropped from the ${extra} earliest of ${marked.length} breakpoints: Anthropic takes at most ${MAX_CACHE_BREAKPOINTS}`,
  );
}
