// Sampling parameters that chat and messages bodies spell alike (`temperature`, `top_p`, `top_k`).
import { num } from '../core/json.ts';
import type { HubRequest } from './form.ts';

/** Copies the sampling parameters a body names onto the hub request; absent or non-numeric ones stay unset. */
export function decodeSampling(body: Record<string, unknown>, req: HubRequest): void {
  const temperature = num(body.temperature);
  if (temperature !== undefined) req.temperature = temperature;
  const topP = num(body.top_p);
  if (topP !== undefined) req.topP = topP;
  const topK = num(body.top_k);
  if (topK !== undefined) req.topK = topK;
}
