// Which stages run for which model, built once at start from the config (top-level blocks and each
// model's); the pipeline asks only when some model has a stage (Gateway.stages is null otherwise).
import type { GatewayConfig } from '../core/config-types.ts';
import type { Stage } from './stage.ts';
import { STAGES } from './index.ts';

/** The stages of one model, split by hook so that each step walks only the stages it needs. */
export class StageList {
  readonly request: readonly Stage[];
  readonly reply: readonly Stage[];
  readonly stream: readonly Stage[];
  /** Some stage looks at replies (whole or streamed). */
  readonly replies: boolean;

  constructor(stages: readonly Stage[]) {
    this.request = stages.filter((s) => s.beforeRouting !== undefined);
    this.reply = stages.filter((s) => s.afterReply !== undefined);
    this.stream = stages.filter((s) => s.onStreamEvent !== undefined);
    this.replies = this.reply.length > 0 || this.stream.length > 0;
  }
}

export class StagePlan {
  readonly #byModel: Map<string, StageList>;

  constructor(byModel: Map<string, StageList>) {
    this.#byModel = byModel;
  }

  forModel(name: string): StageList | null {
    return this.#byModel.get(name) ?? null;
  }
}

/** The plan for a config; null when no model has a stage, so that requests never ask. */
export function stagePlan(config: Pick<GatewayConfig, 'stages' | 'models'>): StagePlan | null {
  const byModel = new Map<string, StageList>();
  for (const model of config.models) {
    const stages: Stage[] = [];
    for (const def of STAGES) {
      const stage = def.build(config.stages?.[def.key], model.stages?.[def.key]);
      if (stage !== null) stages.push(stage);
    }
    if (stages.length > 0) byModel.set(model.name, new StageList(stages));
  }
  return byModel.size === 0 ? null : new StagePlan(byModel);
}
