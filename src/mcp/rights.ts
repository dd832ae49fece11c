// Which namespaced tools (`SERVER__TOOL`) a key may list and call: its `mcp_tools` patterns, where `*`
// stands for any run of characters. No patterns (null) = every configured tool; an empty list = none.
// A key of a team with patterns of its own gets only what both allow.

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

/** A key's rights within its team's: a tool both the key's and its team's patterns allow. */
export function keyToolRights(key: {
  mcpTools?: readonly string[] | null;
  teamRecord?: { mcpTools: readonly string[] | null } | null;
}): ToolRights {
  const own = toolRights(key.mcpTools);
  const team = key.teamRecord?.mcpTools ?? null;
  if (team === null) return own;
  const teams = toolRights(team);
  return (name) => own(name) && teams(name);
}

function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
