// Which namespaced tools (`SERVER__TOOL`) a key may list and call: its `mcp_tools` patterns, where `*`
// stands for any run of characters. No patterns (null) = every configured tool; an empty list = none.

export type ToolRights = (name: string) => boolean;

const ALL: ToolRights = () => true;
const NONE: ToolRights = () => false;

/** The check for one key's patterns; built per request (patterns are few, tool lists short). */
export function toolRights(patterns: readonly string[] | null | undefined): ToolRights {
  if (patterns === null || patterns === undefined) return ALL;
  if (patterns.length === 0) return NONE;
  const res = patterns.map(patternRegExp);
  return (name) => res.some((re) => re.test(name));
}

function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
