// Finding what the rules match in a text and masking it: every rule's matches, overlaps settled for
// the earliest (then the longest, then the first rule listed), each replaced by `[REDACTED:<rule>]`.
import type { Rule } from './detectors.ts';

export interface Found {
  start: number;
  end: number;
  rule: string;
}

/** The matches in `text` that no earlier match overlaps, in order. */
export function findAll(text: string, rules: readonly Rule[]): Found[] {
  const all: Found[] = [];
  for (const rule of rules) {
    const re = rule.regex;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      // An operator's pattern that can match nothing would never advance.
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      if (rule.valid === undefined || rule.valid(m[0]))
        all.push({ start: m.index, end: m.index + m[0].length, rule: rule.name });
    }
  }
  if (all.length < 2) return all;
  // Stable: among equal starts and lengths the rule listed first wins.
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Found[] = [];
  let end = 0;
  for (const f of all) {
    if (f.start < end) continue;
    kept.push(f);
    end = f.end;
  }
  return kept;
}

export function maskOf(rule: string): string {
  return `[REDACTED:${rule}]`;
}

/** `text` with `found` (from findAll on it) masked, from `from` on. */
export function masked(text: string, found: readonly Found[], from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const f of found) {
    out += text.slice(at, f.start) + maskOf(f.rule);
    at = f.end;
  }
  return out + text.slice(at, to);
}
