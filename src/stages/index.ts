// The stages, in the order they run for a request (before routing in this order; on the reply too).
// A new stage is one folder under src/stages/ and one line here (docs/adding-a-stage.md).
import type { StageDefinition } from './stage.ts';
import { redact } from './redact/index.ts';

export const STAGES: readonly StageDefinition[] = [redact];
