// A token count's body through its model's request stages (a count may reach the upstream's own count
// endpoint, so its prompt is masked or refused as a generation request's would be). No usage row is
// written for a count: what the stages did is counted in the metrics only.
import type { Dialect } from '../core/dialect.ts';
import { isObject } from '../core/json.ts';
import { runBeforeRouting } from '../stages/run.ts';
import type { Gateway } from './gateway.ts';

export function stagedBody(
  gw: Pick<Gateway, 'stages' | 'metrics'>,
  o: { dialect: Dialect; body: { text: string; value: unknown }; model?: string | null },
): { text: string; value: unknown } {
  const { value } = o.body;
  if (gw.stages === null || !isObject(value)) return o.body;
  const model = o.model ?? value.model;
  const list = typeof model === 'string' ? gw.stages.forModel(model) : null;
  if (list === null) return o.body;
  const counter = { count: (rule: string, n: number) => gw.metrics.redacted(rule, n) };
  // Gemini's count may wrap a whole generateContent request: its texts are the ones that count.
  const body = isObject(value.generateContentRequest) ? value.generateContentRequest : value;
  if (!runBeforeRouting(list, { dialect: o.dialect, body, stream: false }, counter)) return o.body;
  return { text: JSON.stringify(value), value };
}
