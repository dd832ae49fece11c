// Finds the usage object in a whole response body without parsing the (possibly large) content.
import type { Dialect } from '../core/dialect.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { readAnthropicUsage, readOpenAIUsage } from '../dialects/usage-readers.ts';

export function extractUsage(text: string, dialect: Dialect): Usage | null {
  const at = text.lastIndexOf('"usage"');
  if (at === -1) return null;
  const open = text.indexOf('{', at);
  if (open === -1) return null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) {
      try {
        const u = emptyUsage();
        const obj: unknown = JSON.parse(text.slice(open, i + 1));
        const ok = dialect === 'openai' ? readOpenAIUsage(obj, u) : readAnthropicUsage(obj, u);
        return ok ? u : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}
