// The `redact:` block (top level and per model) and how the two combine into one model's rules.
import { z } from 'zod';
import { DETECTOR_NAMES, DETECTORS, type Rule } from './detectors.ts';

export const redactSchema = z.strictObject({
  detectors: z.array(z.enum(DETECTOR_NAMES)).optional(),
  patterns: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, `_`, `.` or `-`, at most 64'),
        regex: z.string().min(1).refine(compiles, 'must be a valid JavaScript regular expression'),
      }),
    )
    .optional(),
  replies: z.boolean().optional(),
  action: z.enum(['mask', 'refuse']).optional(),
});

export type RedactBlock = z.infer<typeof redactSchema>;

export interface RedactSettings {
  rules: Rule[];
  replies: boolean;
  action: 'mask' | 'refuse';
}

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'g');
    return true;
  } catch {
    return false;
  }
}

/**
 * A model's block replaces the top level's `detectors`, `replies` and `action` where it sets them; its
 * `patterns` add to the top level's (one of the same name replaces it). Null when no rule is left.
 */
export function settingsFor(top: RedactBlock | undefined, model: RedactBlock | undefined): RedactSettings | null {
  if (top === undefined && model === undefined) return null;
  const detectors = model?.detectors ?? top?.detectors ?? [];
  const patterns = new Map<string, string>();
  for (const p of top?.patterns ?? []) patterns.set(p.name, p.regex);
  for (const p of model?.patterns ?? []) patterns.set(p.name, p.regex);
  // Built-in detectors in their own order (keys before the shorter detectors that could see a piece).
  const rules: Rule[] = Object.values(DETECTORS).filter((d) => detectors.includes(d.name as never));
  for (const [name, source] of patterns) rules.push({ name, regex: new RegExp(source, 'g') });
  if (rules.length === 0) return null;
  return { rules, replies: model?.replies ?? top?.replies ?? false, action: model?.action ?? top?.action ?? 'mask' };
}
